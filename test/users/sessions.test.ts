import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endUserWorld, type EndUserWorld } from './helpers.ts';

describe('end-user signup, login, refresh', () => {
  let w: EndUserWorld;
  beforeAll(async () => {
    // The shortest reuse grace, so a replay can be tested a second later (test/users/refresh-grace.test.ts covers the grace).
    w = await endUserWorld({ AUTH_JWT_KEYS: 'k2:second-secret-that-is-at-least-32-chars,k1:first-secret-that-is-at-least-32-chars-long', AUTH_REFRESH_REUSE_GRACE_SECONDS: '1' });
  });
  afterAll(() => w.t.close());

  it('signs up with 201 and the token payload of docs/auth.md', async () => {
    const res = await w.auth('POST', 'signup', { body: { email: 'Ada@Example.com', password: 'correct horse battery', display_name: 'Ada' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_at: expect.any(String),
      refresh_token: expect.stringMatching(/^.{40,}$/),
      refresh_token_expires_at: expect.any(String),
      user: { id: expect.any(Number), uuid: expect.any(String), email: 'Ada@Example.com', display_name: 'Ada', email_verified_at: null, metadata: {} },
    });
    // 900 s access, 30 days refresh by default
    const access = (Date.parse(res.body.expires_at) - Date.now()) / 1000;
    expect(access).toBeGreaterThan(850);
    expect(access).toBeLessThanOrEqual(900);
    expect(Date.parse(res.body.refresh_token_expires_at) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const me = await w.auth('GET', 'me', { token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe('Ada@Example.com');
    // signed with the first key of AUTH_JWT_KEYS
    const header = JSON.parse(Buffer.from(res.body.access_token.split('.')[0], 'base64url').toString());
    expect(header).toMatchObject({ alg: 'HS256', kid: 'k2' });
  });

  it('rejects a taken address whatever its case, and bad bodies, with 422 naming the field', async () => {
    const dup = await w.auth('POST', 'signup', { body: { email: 'ADA@example.COM', password: 'another password' } });
    expect(dup.status).toBe(422);
    expect(dup.body.errors.email).toEqual(['The email has already been taken.']);
    const bad = await w.auth('POST', 'signup', { body: { email: 'not-an-email', password: 'short' } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['email', 'password']);
    const none = await w.auth('POST', 'signup', {});
    expect(none.status).toBe(422);
  });

  it('needs the project header (400) but no CMS token', async () => {
    const res = await w.t.request({ method: 'POST', url: '/api/auth/login', body: { email: 'ada@example.com', password: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Project header missing.');
  });

  it('logs in; wrong password and unknown address both answer 401 Invalid credentials.', async () => {
    const ok = await w.auth('POST', 'login', { body: { email: 'ada@example.com', password: 'correct horse battery' } });
    expect(ok.status).toBe(200);
    expect(ok.body.user.email).toBe('Ada@Example.com');
    const wrong = await w.auth('POST', 'login', { body: { email: 'ada@example.com', password: 'wrong password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ message: 'Invalid credentials.' });
    const unknown = await w.auth('POST', 'login', { body: { email: 'nobody@example.com', password: 'wrong password' } });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ message: 'Invalid credentials.' });
  });

  it('rotates refresh tokens, and a reused one revokes the whole session family', async () => {
    const first = await w.signup('rotate@example.com');
    const second = await w.auth('POST', 'refresh', { body: { refresh_token: first.refresh_token } });
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(second.body.user.uuid).toBe(first.user.uuid);
    const third = await w.auth('POST', 'refresh', { body: { refresh_token: second.body.refresh_token } });
    expect(third.status).toBe(200);

    // Replaying the first token after the grace: refused, and every token of the family dies with it.
    await sleep(1100);
    const replay = await w.auth('POST', 'refresh', { body: { refresh_token: first.refresh_token } });
    expect(replay.status).toBe(401);
    expect(replay.body.message).toBe('Invalid refresh token.');
    expect((await w.auth('POST', 'refresh', { body: { refresh_token: third.body.refresh_token } })).status).toBe(401);
    expect((await w.auth('GET', 'me', { token: third.body.access_token })).status).toBe(401);

    // Another sign-in of the same user is another family and is untouched.
    const other = await w.auth('POST', 'login', { body: { email: 'rotate@example.com', password: 'correct horse battery' } });
    expect((await w.auth('GET', 'me', { token: other.body.access_token })).status).toBe(200);
  });

  it('refuses refresh tokens that are short (422) or unknown (401), and refresh without Authorization', async () => {
    expect((await w.auth('POST', 'refresh', { body: { refresh_token: 'short' } })).status).toBe(422);
    expect((await w.auth('POST', 'refresh', { body: { refresh_token: 'urt_' + 'x'.repeat(43) } })).status).toBe(401);
  });

  it('logout ends the current session only; logout-all ends every one', async () => {
    const a = await w.signup('logout@example.com');
    const b = (await w.auth('POST', 'login', { body: { email: 'logout@example.com', password: 'correct horse battery' } })).body;
    const c = (await w.auth('POST', 'login', { body: { email: 'logout@example.com', password: 'correct horse battery' } })).body;
    const out = await w.auth('POST', 'logout', { token: a.access_token });
    expect(out.status).toBe(200);
    expect((await w.auth('GET', 'me', { token: a.access_token })).status).toBe(401);
    expect((await w.auth('POST', 'refresh', { body: { refresh_token: a.refresh_token } })).status).toBe(401);
    expect((await w.auth('GET', 'me', { token: b.access_token })).status).toBe(200);

    const all = await w.auth('POST', 'logout-all', { token: b.access_token });
    expect(all.status).toBe(200);
    expect(all.body.revoked_sessions).toBe(2);
    expect((await w.auth('GET', 'me', { token: c.access_token })).status).toBe(401);
    expect((await w.auth('POST', 'refresh', { body: { refresh_token: c.refresh_token } })).status).toBe(401);
  });

  it('changes the password: the old one stops working and other sessions are signed out', async () => {
    const a = await w.signup('change@example.com');
    const other = (await w.auth('POST', 'login', { body: { email: 'change@example.com', password: 'correct horse battery' } })).body;
    const wrong = await w.auth('POST', 'change-password', { token: a.access_token, body: { current_password: 'nope nope', new_password: 'a brand new secret' } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.current_password).toBeDefined();
    const same = await w.auth('POST', 'change-password', { token: a.access_token, body: { current_password: 'correct horse battery', new_password: 'correct horse battery' } });
    expect(same.status).toBe(422);
    expect(same.body.errors.new_password).toBeDefined();
    expect((await w.auth('POST', 'change-password', { body: { current_password: 'x', new_password: 'yyyyyyyy' } })).status).toBe(401);
    const ok = await w.auth('POST', 'change-password', { token: a.access_token, body: { current_password: 'correct horse battery', new_password: 'a brand new secret' } });
    expect(ok.status).toBe(200);
    expect((await w.auth('GET', 'me', { token: a.access_token })).status).toBe(200);
    expect((await w.auth('GET', 'me', { token: other.access_token })).status).toBe(401);
    expect((await w.auth('POST', 'login', { body: { email: 'change@example.com', password: 'correct horse battery' } })).status).toBe(401);
    expect((await w.auth('POST', 'login', { body: { email: 'change@example.com', password: 'a brand new secret' } })).status).toBe(200);
  });

  it('refuses tampered, foreign-key and missing access tokens with 401', async () => {
    const a = await w.signup('tamper@example.com');
    const [h, body] = a.access_token.split('.');
    expect((await w.auth('GET', 'me', { token: `${h}.${body}.AAAA` })).status).toBe(401);
    expect((await w.auth('GET', 'me')).status).toBe(401);
    expect((await w.auth('GET', 'me', { token: 'garbage' })).status).toBe(401);
  });

  it('keeps users per project: the same address in two projects is two accounts, and tokens do not cross', async () => {
    const other = await w.t.project({ name: 'Other' });
    const here = await w.signup('twin@example.com');
    const there = await w.auth('POST', 'signup', { project: other.uuid, body: { email: 'twin@example.com', password: 'a different password' } });
    expect(there.status).toBe(201);
    expect(there.body.user.uuid).not.toBe(here.user.uuid);
    expect((await w.auth('POST', 'login', { project: other.uuid, body: { email: 'twin@example.com', password: 'correct horse battery' } })).status).toBe(401);
    expect((await w.auth('GET', 'me', { project: other.uuid, token: here.access_token })).status).toBe(401);
    expect((await w.auth('POST', 'refresh', { project: other.uuid, body: { refresh_token: here.refresh_token } })).status).toBe(401);
  });
});

describe('end-user auth on embedded PGlite', () => {
  let w: EndUserWorld;
  beforeAll(async () => {
    w = await endUserWorld({ AUTH_REFRESH_REUSE_GRACE_SECONDS: '1' }, { embedded: true });
  });
  afterAll(() => w.t.close());

  it('signs up, logs in, rotates and detects reuse as on PostgreSQL', async () => {
    const s = await w.signup('embedded@example.com');
    const login = await w.auth('POST', 'login', { body: { email: 'embedded@example.com', password: 'correct horse battery' } });
    expect(login.status).toBe(200);
    const next = await w.auth('POST', 'refresh', { body: { refresh_token: s.refresh_token } });
    expect(next.status).toBe(200);
    await sleep(1100);
    expect((await w.auth('POST', 'refresh', { body: { refresh_token: s.refresh_token } })).status).toBe(401);
    expect((await w.auth('GET', 'me', { token: next.body.access_token })).status).toBe(401);
    expect((await w.auth('GET', 'me', { token: login.body.access_token })).status).toBe(200);
  });
});
