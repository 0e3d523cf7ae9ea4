import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../helpers/pg.ts';
import { endUserWorld, type EndUserWorld } from './helpers.ts';

const PASSWORD = 'correct horse battery';

// Every place that checks a password shares the account's failure counter with login, in process
// memory and in Redis alike (keys carry the project UUID, so runs do not meet).
describe.each([
  ['memory', {}],
  ['redis', { REDIS_URL }],
])('one lockout for every password check (%s)', (_name, store: Record<string, string>) => {
  let w: EndUserWorld;
  beforeAll(async () => {
    w = await endUserWorld({ AUTH_LOCKOUT_ATTEMPTS: '3', AUTH_LOCKOUT_SECONDS: '600', AUTH_RATE_PER_MINUTE_ACCOUNT: '100', AUTH_RATE_PER_MINUTE_ADDRESS: '100', ...store });
  });
  afterAll(() => w.t.close());

  const login = (email: string, password: string) => w.auth('POST', 'login', { body: { email, password } });
  const change = (token: string, current: string, next = 'a brand new secret') =>
    w.auth('POST', 'change-password', { token, body: { current_password: current, new_password: next } });

  it('wrong current_password guesses lock the account like failed logins; the right password is then refused everywhere', async () => {
    const a = await w.signup('guessed@example.com');
    expect((await change(a.access_token, 'wrong 1')).status).toBe(422);
    expect((await change(a.access_token, 'wrong 2')).status).toBe(422);
    const third = await change(a.access_token, 'wrong 3');
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ message: 'Invalid credentials.', retry_after: 600 });
    expect(third.headers['retry-after']).toBe('600');

    const right = await change(a.access_token, PASSWORD);
    expect(right.status).toBe(429);
    expect(right.body.message).toBe('Invalid credentials.');
    expect(right.body.retry_after).toBeGreaterThan(590);
    expect((await login('guessed@example.com', PASSWORD)).status).toBe(429);
    // The password did not change while locked: the session still works, and so does nothing else.
    expect((await w.auth('GET', 'me', { token: a.access_token })).status).toBe(200);
  });

  it('failed logins and failed password changes add up to one lockout', async () => {
    const a = await w.signup('mixed@example.com');
    expect((await login('mixed@example.com', 'wrong 1')).status).toBe(401);
    expect((await login('MIXED@example.com', 'wrong 2')).status).toBe(401);
    expect((await change(a.access_token, 'wrong 3')).status).toBe(429);
    expect((await change(a.access_token, PASSWORD)).status).toBe(429);
  });

  it('a right password on either route forgets the failures', async () => {
    const a = await w.signup('forgiven@example.com');
    expect((await change(a.access_token, 'wrong 1')).status).toBe(422);
    expect((await change(a.access_token, 'wrong 2')).status).toBe(422);
    expect((await login('forgiven@example.com', PASSWORD)).status).toBe(200);
    expect((await change(a.access_token, 'wrong 3')).status).toBe(422);
    expect((await change(a.access_token, 'wrong 4')).status).toBe(422);
    expect((await change(a.access_token, PASSWORD)).status).toBe(200);
    // Counting starts again from zero after the successful change.
    expect((await change(a.access_token, 'wrong 5', 'another new secret')).status).toBe(422);
    expect((await change(a.access_token, 'wrong 6', 'another new secret')).status).toBe(422);
    expect((await change(a.access_token, 'wrong 7', 'another new secret')).status).toBe(429);
  });
});

describe('the per-address budgets of credential checks', () => {
  let w: EndUserWorld;
  beforeAll(async () => {
    w = await endUserWorld({ AUTH_RATE_PER_MINUTE_ADDRESS: '3', AUTH_RATE_PER_MINUTE_ACCOUNT: '100', AUTH_RATE_PER_MINUTE_USER: '6', AUTH_LOCKOUT_ATTEMPTS: '100' });
  });
  afterAll(() => w.t.close());

  it('password changes draw from the same address budget as logins: 429 with Retry-After once it is spent', async () => {
    const a = await w.signup('budget@example.com');
    expect((await w.auth('POST', 'login', { body: { email: 'budget@example.com', password: 'wrong' } })).status).toBe(401);
    const change = () => w.auth('POST', 'change-password', { token: a.access_token, body: { current_password: 'wrong', new_password: 'a brand new secret' } });
    expect((await change()).status).toBe(422);
    expect((await change()).status).toBe(422);
    const spent = await change();
    expect(spent.status).toBe(429);
    expect(spent.body.message).toBe('Too Many Attempts.');
    expect(spent.body.retry_after).toBeGreaterThan(0);
    expect(Number(spent.headers['retry-after'])).toBe(spent.body.retry_after);
    // And logins from that address with it, whatever the account.
    expect((await w.auth('POST', 'login', { body: { email: 'someone-else@example.com', password: 'wrong' } })).status).toBe(429);
  });

  it('/me and /api-keys draw from the address budget of signed-in requests, valid or not', async () => {
    // A project of its own: budgets are per project, and the test above spent some of its project's.
    const project = (await w.t.project({ name: 'Readers' })).uuid;
    const call = (method: string, path: string, token: string, body?: unknown) => w.auth(method, path, { project, token, body });
    const a = (await w.auth('POST', 'signup', { project, body: { email: 'reader@example.com', password: PASSWORD } })).body;
    const key = (await call('POST', 'api-keys', a.access_token, { name: 'app' })).body.plain_text_key as string;
    expect((await call('GET', 'me', a.access_token)).status).toBe(200);
    expect((await call('GET', 'me', key)).status).toBe(200);
    expect((await call('GET', 'api-keys', a.access_token)).status).toBe(200);
    expect((await call('GET', 'me', `uak_${'x'.repeat(43)}`)).status).toBe(401);
    expect((await call('GET', 'api-keys', 'not-a-token')).status).toBe(401);
    for (const [path, token] of [['me', key], ['api-keys', a.access_token], ['me', `uak_${'y'.repeat(43)}`]] as const) {
      const spent = await call('GET', path, token);
      expect(spent.status).toBe(429);
      expect(spent.body.message).toBe('Too Many Attempts.');
      expect(Number(spent.headers['retry-after'])).toBeGreaterThan(0);
    }
  });
});

describe('password hashing per address', () => {
  let w: EndUserWorld;
  beforeAll(async () => {
    w = await endUserWorld({ AUTH_HASH_CONCURRENCY_PER_ADDRESS: '1', AUTH_RATE_PER_MINUTE_ADDRESS: '1000', AUTH_RATE_PER_MINUTE_ACCOUNT: '1000', AUTH_LOCKOUT_ATTEMPTS: '1000' });
  });
  afterAll(() => w.t.close());

  it('runs at most the configured number of hashes of one address at once; the rest get 429 with Retry-After at once', async () => {
    const guesses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => w.auth('POST', 'login', { body: { email: `ghost${i}@example.com`, password: 'a guess' } })),
    );
    const statuses = guesses.map((r) => r.status);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    expect(statuses).toContain(401);
    const refused = guesses.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.body).toEqual({ message: 'Too Many Attempts.', retry_after: 1 });
      expect(r.headers['retry-after']).toBe('1');
    }
    // Signups hash too, and draw on the same slots.
    const signups = await Promise.all(
      Array.from({ length: 8 }, (_, i) => w.auth('POST', 'signup', { body: { email: `new${i}@example.com`, password: PASSWORD } })),
    );
    expect(signups.map((r) => r.status)).toContain(429);
    expect(signups.every((r) => r.status === 201 || r.status === 429)).toBe(true);
    // Once they are done, the address hashes again.
    expect((await w.auth('POST', 'login', { body: { email: 'ghost0@example.com', password: 'a guess' } })).status).toBe(401);
  });
});
