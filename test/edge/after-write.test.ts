import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/pg.ts';
import { field, posts, world, type World } from '../helpers/world.ts';
import { recordStatements } from '../helpers/sql-count.ts';
import { mutationOutcome } from '../../src/edge/pipeline/index.ts';

/** The afterWrite stage's statement: the primary's WAL position a write's answer carries as `Read-After`. */
const WAL_POSITION = 'SELECT pg_current_wal_lsn()::text AS lsn';

/**
 * The afterWrite stage with read replicas configured. The "replica" is the primary itself, checked
 * once at start (it has no replay position, so it stays out of rotation and every read goes to the
 * primary): what is measured is only what a write's answer costs, with no replica check in between.
 */
describe('afterWrite: the WAL position only for writes that succeeded', () => {
  let t: TestApp;
  let w: World;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const db = await createTestDatabase();
    drop = db.drop;
    t = await startTestApp({ databaseUrl: db.url, env: { DATABASE_URL: db.url, DATABASE_REPLICA_URLS: db.url, REPLICA_CHECK_MS: '60000' } });
    w = await world({ app: t, collections: [posts({ name: 'slug', type: 'slug' })] });
  });
  afterAll(async () => {
    await t?.close();
    await drop?.();
  });

  const positionsAsked = (texts: string[]) => texts.filter((s) => s.trim() === WAL_POSITION).length;

  it('a REST write that succeeded asks the position once and answers it as Read-After', async () => {
    const { result, texts } = await recordStatements(() => w.api('POST', '/api/posts', { data: { title: 'One', slug: 'one' } }));
    expect(result.status).toBe(201);
    expect(result.headers['read-after']).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    expect(positionsAsked(texts)).toBe(1);
  });

  it('a REST write refused (422, 404) asks nothing of the primary after it and carries no Read-After', async () => {
    const taken = await recordStatements(() => t.request({ method: 'POST', url: '/api/posts', headers: w.p.headers, body: { data: { title: 'Two', slug: 'one' } } }));
    expect(taken.result.status).toBe(422);
    const invalid = await recordStatements(() => t.request({ method: 'POST', url: '/api/posts', headers: w.p.headers, body: { data: { title: 'Three', slug: 'Not A Slug!' } } }));
    expect(invalid.result.status).toBe(422);
    const missing = await recordStatements(() =>
      t.request({ method: 'PUT', url: '/api/posts/00000000-0000-4000-8000-000000000000', headers: w.p.headers, body: { data: { title: 'Gone' } } }),
    );
    expect(missing.result.status).toBe(404);
    for (const { result, texts } of [taken, invalid, missing]) {
      expect(result.headers['read-after']).toBeUndefined();
      expect(positionsAsked(texts)).toBe(0);
    }
  });

  it('a GraphQL mutation: the position when it wrote, nothing when every root field failed', async () => {
    const gql = (query: string) => t.request({ method: 'POST', url: '/graphql', headers: w.p.headers, body: { query } });
    const wrote = await recordStatements(() => gql('mutation { createPost(data: { title: "Four", slug: "four" }) { uuid } }'));
    expect(wrote.result.status).toBe(200);
    expect(wrote.result.body.errors).toBeUndefined();
    expect(wrote.result.headers['read-after']).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    expect(positionsAsked(wrote.texts)).toBe(1);
    const refused = await recordStatements(() => gql('mutation { createPost(data: { title: "Five", slug: "four" }) { uuid } }'));
    expect(refused.result.body.errors?.length).toBeGreaterThan(0);
    expect(refused.result.body.data?.createPost ?? null).toBeNull();
    expect(refused.result.headers['read-after']).toBeUndefined();
    expect(positionsAsked(refused.texts)).toBe(0);
  });

  it('a GraphQL mutation fails only when every root field failed', () => {
    const error = (field: string) => ({ message: 'no', path: [field] });
    expect(mutationOutcome({ data: { a: { uuid: 'x' } } })).toBe('succeeded');
    expect(mutationOutcome({ data: null, errors: [{ message: 'invalid' } as { path?: string[] }] })).toBe('failed');
    expect(mutationOutcome({ data: { a: null }, errors: [error('a')] })).toBe('failed');
    expect(mutationOutcome({ data: { a: null, b: null }, errors: [error('a'), error('b')] })).toBe('failed');
    // One field committed beside one that failed: the write counts.
    expect(mutationOutcome({ data: { a: { uuid: 'x' }, b: null }, errors: [error('b')] })).toBe('succeeded');
  });
});
