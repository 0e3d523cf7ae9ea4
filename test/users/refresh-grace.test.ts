import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endUserWorld, type EndUserWorld } from './helpers.ts';

describe.each([
  ['PostgreSQL', false],
  ['embedded PGlite', true],
])('refresh races and retries (%s)', (_name, embedded) => {
  let w: EndUserWorld;
  beforeAll(async () => {
    w = await endUserWorld({ AUTH_RATE_PER_MINUTE_ACCOUNT: '100', AUTH_RATE_PER_MINUTE_ADDRESS: '100' }, { embedded });
  });
  afterAll(() => w.t.close());

  const refresh = (token: string) => w.auth('POST', 'refresh', { body: { refresh_token: token } });
  const meStatus = async (token: string) => (await w.auth('GET', 'me', { token })).status;

  it('six parallel refreshes of one token: every 200 carries an access token and a refresh token that work', async () => {
    const s = await w.signup('parallel@example.com');
    const answers = await Promise.all(Array.from({ length: 6 }, () => refresh(s.refresh_token)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const a of answers) expect(await meStatus(a.body.access_token)).toBe(200);
    // Each answer's refresh token rotates on (the family is intact), and the other answers still work after.
    const next = await Promise.all(answers.map((a) => refresh(a.body.refresh_token)));
    expect(next.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const a of [...answers, ...next]) expect(await meStatus(a.body.access_token)).toBe(200);
  });

  it('a client that retries after losing the answer is not logged out', async () => {
    const s = await w.signup('retry@example.com');
    const lost = await refresh(s.refresh_token);
    const retried = await refresh(s.refresh_token);
    expect(lost.status).toBe(200);
    expect(retried.status).toBe(200);
    expect(await meStatus(retried.body.access_token)).toBe(200);
    expect((await refresh(retried.body.refresh_token)).status).toBe(200);
  });
});

describe('refresh token replay after the grace', () => {
  let w: EndUserWorld;
  beforeAll(async () => {
    w = await endUserWorld({ AUTH_REFRESH_REUSE_GRACE_SECONDS: '1' });
  });
  afterAll(() => w.t.close());

  it('revokes the whole family, the answers given within the grace included', async () => {
    const s = await w.signup('replayed@example.com');
    const first = await w.auth('POST', 'refresh', { body: { refresh_token: s.refresh_token } });
    const again = await w.auth('POST', 'refresh', { body: { refresh_token: s.refresh_token } });
    expect([first.status, again.status]).toEqual([200, 200]);
    const other = await w.auth('POST', 'login', { body: { email: 'replayed@example.com', password: 'correct horse battery' } });

    await sleep(1100);
    const replay = await w.auth('POST', 'refresh', { body: { refresh_token: s.refresh_token } });
    expect(replay.status).toBe(401);
    expect(replay.body.message).toBe('Invalid refresh token.');
    for (const a of [first, again]) {
      expect((await w.auth('GET', 'me', { token: a.body.access_token })).status).toBe(401);
      expect((await w.auth('POST', 'refresh', { body: { refresh_token: a.body.refresh_token } })).status).toBe(401);
    }
    // Another sign-in is another family, untouched.
    expect((await w.auth('GET', 'me', { token: other.body.access_token })).status).toBe(200);
  });
});
