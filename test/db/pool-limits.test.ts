import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { authors, posts, world, type World } from '../helpers/world.ts';

/**
 * One row lock held outside the app must not take the whole pool with it: writers of that row wait
 * at most DATABASE_LOCK_TIMEOUT_MS and answer 503 with Retry-After, requests queued for a connection
 * wait at most DATABASE_POOL_TIMEOUT_MS, and /readyz answers from a connection of its own. The test
 * app's pool has 5 connections; 15 writers of one entry are three times that. Outcomes only, no timings.
 */
describe('a row lock held by an outside transaction', () => {
  let w: World | undefined;
  let outside: pg.Client | undefined;
  afterEach(async () => {
    await outside?.query('ROLLBACK').catch(() => {});
    await outside?.end();
    await w?.close();
    outside = undefined;
    w = undefined;
  });

  async function lockedEntry(env: Record<string, string>) {
    w = await world({ app: { env }, collections: [posts(), authors()] });
    const created = await w.api('POST', '/api/posts', { data: { title: 'contended' } });
    expect(created.status).toBe(201);
    expect((await w.api('POST', '/api/authors', { data: { name: 'Ada' } })).status).toBe(201);
    const uuid = created.body.uuid as string;
    outside = new pg.Client({ connectionString: w.t.databaseUrl });
    await outside.connect();
    await outside.query('BEGIN');
    const locked = await outside.query('SELECT id FROM entries WHERE uuid = $1 FOR UPDATE', [uuid]);
    expect(locked.rowCount).toBe(1);
    const updates = Array.from({ length: 15 }, (_, i) => w!.api('PATCH', `/api/posts/${uuid}`, { data: { title: `update ${i}` } }));
    return { uuid, updates };
  }

  function expectBusy(res: { status: number; headers: Record<string, unknown>; body: unknown; text: string }) {
    expect(res.status, res.text).toBe(503);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.body).toEqual({ message: expect.stringMatching(/retry/i) });
  }

  it('its writers end at the lock timeout with 503 + Retry-After; other reads and /readyz are answered meanwhile', async () => {
    const { uuid, updates } = await lockedEntry({ DATABASE_LOCK_TIMEOUT_MS: '300', DATABASE_POOL_TIMEOUT_MS: '30000' });
    // Queued behind the writers, while the lock is still held: each writer frees its connection at the lock timeout.
    const [read, ready] = await Promise.all([w!.api('GET', '/api/authors?state=draft'), w!.t.request({ method: 'GET', url: '/readyz' })]);
    expect(ready.status, ready.text).toBe(200);
    expect(read.status, read.text).toBe(200);
    expect(read.text).toContain('Ada');
    for (const res of await Promise.all(updates)) expectBusy(res);
    // The same writer through GraphQL: SERVICE_UNAVAILABLE with the status and Retry-After, no INTERNAL.
    const gql = await w!.t.request({
      method: 'POST',
      url: '/graphql',
      headers: w!.p.headers,
      body: { query: 'mutation($u: String!) { updateEntry(collection: "posts", uuid: $u, data: { title: "via graphql" }) { uuid } }', variables: { u: uuid } },
    });
    expect(gql.body.errors?.[0].extensions, gql.text).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    expect(Number(gql.headers['retry-after'])).toBeGreaterThan(0);
    // The lock is still held: nothing was written.
    expect((await outside!.query('SELECT 1 FROM entries WHERE uuid = $1 AND data::text LIKE $2', [uuid, '%update%'])).rowCount).toBe(0);
    await outside!.query('ROLLBACK');
    const after = await w!.api('PATCH', `/api/posts/${uuid}`, { data: { title: 'after' } });
    expect(after.status, after.text).toBe(200);
  });

  it('requests queued for a saturated pool end at the pool timeout with 503 + Retry-After; /readyz still answers 200', async () => {
    const { uuid, updates } = await lockedEntry({ DATABASE_LOCK_TIMEOUT_MS: '3000', DATABASE_POOL_TIMEOUT_MS: '300' });
    // Five writers hold every connection waiting on the lock; the rest, and this read, wait for one.
    const [read, ready] = await Promise.all([w!.api('GET', '/api/authors?state=draft'), w!.t.request({ method: 'GET', url: '/readyz' })]);
    expect(ready.status, ready.text).toBe(200);
    expect(ready.body.checks.database).toBe('ok');
    if (read.status !== 200) expectBusy(read);
    for (const res of await Promise.all(updates)) expectBusy(res);
    await outside!.query('ROLLBACK');
    expect((await w!.api('PATCH', `/api/posts/${uuid}`, { data: { title: 'after' } })).status).toBe(200);
    expect((await w!.api('GET', '/api/authors?state=draft')).status).toBe(200);
  });

  it('the app’s connections carry the configured lock and statement timeouts', async () => {
    w = await world({ app: { env: { DATABASE_LOCK_TIMEOUT_MS: '1234', DATABASE_STATEMENT_TIMEOUT_MS: '56789' } } });
    const [row] = await w.t.database.query<{ lock: string; statement: string }>(
      "SELECT current_setting('lock_timeout') AS lock, current_setting('statement_timeout') AS statement",
    );
    expect(row).toEqual({ lock: '1234ms', statement: '56789ms' });
  });

  it('migrations and index builds (runScript) run without the request bounds, which stay on the connection after', async () => {
    w = await world({ app: { env: { DATABASE_STATEMENT_TIMEOUT_MS: '50', DATABASE_POOL_TIMEOUT_MS: '30000' } } });
    // Past the 50 ms statement bound, yet it completes.
    await w.t.database.runScript('SELECT pg_sleep(0.3)');
    const settings = await Promise.all(
      Array.from({ length: 5 }, () => w!.t.database.query<{ statement: string }>("SELECT current_setting('statement_timeout') AS statement")),
    );
    for (const [row] of settings) expect(row.statement).toBe('50ms');
  });
});
