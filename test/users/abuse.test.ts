import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../helpers/pg.ts';
import { endUserWorld, type EndUserWorld } from './helpers.ts';

// In process memory, and in Redis (shared by replicas); keys carry the project UUID, so runs do not meet.
describe.each([
  ['memory', {}],
  ['redis', { REDIS_URL }],
])('end-user login lockout (%s)', (_name, store: Record<string, string>) => {
  let w: EndUserWorld;
  beforeAll(async () => {
    w = await endUserWorld({ AUTH_LOCKOUT_ATTEMPTS: '3', AUTH_LOCKOUT_SECONDS: '600', AUTH_RATE_PER_MINUTE_ACCOUNT: '100', AUTH_RATE_PER_MINUTE_ADDRESS: '100', ...store });
  });
  afterAll(() => w.t.close());

  const login = (email: string, password: string, project?: string) => w.auth('POST', 'login', { project, body: { email, password } });

  it('locks an account out after repeated failures: 429 with retry_after, even for the right password', async () => {
    await w.signup('locked@example.com');
    expect((await login('locked@example.com', 'wrong 1')).status).toBe(401);
    expect((await login('locked@example.com', 'wrong 2')).status).toBe(401);
    const third = await login('locked@example.com', 'wrong 3');
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ message: 'Invalid credentials.', retry_after: 600 });
    expect(third.headers['retry-after']).toBe('600');
    const right = await login('LOCKED@example.com', 'correct horse battery');
    expect(right.status).toBe(429);
    expect(right.body.retry_after).toBeGreaterThan(590);
    expect(right.body.retry_after).toBeLessThanOrEqual(600);
  });

  it('locks unknown addresses alike, so a lockout reveals nothing', async () => {
    for (let i = 0; i < 2; i++) expect((await login('ghost@example.com', 'wrong')).status).toBe(401);
    expect((await login('ghost@example.com', 'wrong')).status).toBe(429);
  });

  it('a success before the limit forgets the failures; other accounts and projects are not affected', async () => {
    await w.signup('forgiven@example.com');
    expect((await login('forgiven@example.com', 'wrong')).status).toBe(401);
    expect((await login('forgiven@example.com', 'wrong')).status).toBe(401);
    expect((await login('forgiven@example.com', 'correct horse battery')).status).toBe(200);
    expect((await login('forgiven@example.com', 'wrong')).status).toBe(401);
    expect((await login('forgiven@example.com', 'wrong')).status).toBe(401);
    expect((await login('forgiven@example.com', 'correct horse battery')).status).toBe(200);

    const other = await w.t.project({ name: 'Elsewhere' });
    expect((await w.auth('POST', 'signup', { project: other.uuid, body: { email: 'locked@example.com', password: 'correct horse battery' } })).status).toBe(201);
    expect((await login('locked@example.com', 'correct horse battery', other.uuid)).status).toBe(200);
  });
});

describe('end-user auth budgets per address and per account', () => {
  let w: EndUserWorld;
  beforeAll(async () => {
    w = await endUserWorld({ AUTH_RATE_PER_MINUTE_ADDRESS: '4', AUTH_RATE_PER_MINUTE_ACCOUNT: '2' });
  });
  afterAll(() => w.t.close());

  it('signup: the account budget, then the address budget, answer 429 with retry_after', async () => {
    const signup = (email: string) => w.auth('POST', 'signup', { body: { email, password: 'correct horse battery' } });
    expect((await signup('a@example.com')).status).toBe(201);
    expect((await signup('a@example.com')).status).toBe(422);
    const third = await signup('a@example.com');
    expect(third.status).toBe(429);
    expect(third.body.retry_after).toBeGreaterThan(0);
    expect((await signup('b@example.com')).status).toBe(201);
    expect((await signup('c@example.com')).status).toBe(429); // the address spent its 4
  });

  it('refresh draws from its own budget', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await w.auth('POST', 'refresh', { body: { refresh_token: `urt_${'y'.repeat(43)}${i}` } })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
  });
});
