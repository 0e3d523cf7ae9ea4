import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { recordStatements } from '../../helpers/sql-count.ts';
import { bulkProject, postItems, type BulkProject } from './helpers.ts';

/**
 * Bulk create into a collection with a unique field (`posts.code`) writes before it takes the
 * write-scope lock, then rechecks the values under the lock and commits
 * (src/entries/operations/create-without-lock.ts, src/entries/values/unique-recheck.ts). A value taken
 * meanwhile rolls the whole write back, and the request answers as the locked transaction does.
 */
describe('bulk create with a unique field', () => {
  let t: TestApp;
  let b: BulkProject;
  beforeAll(async () => {
    t = await startTestApp();
    b = await bulkProject(t);
  });
  afterAll(() => t.close());


  const items = (n: number, tag: string) => postItems(n, (i) => ({ state: 'published', data: { title: `P${i}`, code: `${tag}-${i}` } }));

  it('the same statements for 1 item as for 50; the lock comes after the write and its triggers, and covers the recheck and the commit', async () => {
    await b.create('posts', { items: items(1, 'warm') });
    const one = await recordStatements(() => b.create('posts', { items: items(1, 'one') }));
    const fifty = await recordStatements(() => b.create('posts', { items: items(50, 'fifty') }));
    expect(one.result.status, one.result.text).toBe(201);
    expect(fifty.result.status, fifty.result.text).toBe(201);
    expect(fifty.result.body.data).toHaveLength(50);
    expect(fifty.texts).toHaveLength(one.texts.length);
    const at = (re: RegExp) => fifty.texts.findIndex((s) => re.test(s));
    const begin = at(/^BEGIN$/);
    const write = at(/INSERT INTO entries/);
    const triggers = at(/^SET CONSTRAINTS ALL IMMEDIATE$/);
    const lock = at(/pg_advisory_xact_lock/);
    const recheck = at(/AS taken/);
    const commit = at(/^COMMIT$/);
    expect([begin, write, triggers, lock, recheck, commit].every((i) => i >= 0)).toBe(true);
    expect(begin < write && write < triggers && triggers < lock && lock < recheck && recheck < commit).toBe(true);
    // Nothing else runs inside the transaction.
    expect(commit - begin).toBe(5);
    const [{ n }] = await t.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM entries WHERE collection_id = $1::int AND data ->> 'code' LIKE 'fifty-%'`, [b.ids.posts]);
    expect(n).toBe(50);
  });

  it('a value committed by another writer between validation and the recheck rolls the write back: 422, nothing of it kept', async () => {
    const hold = new pg.Client({ connectionString: t.databaseUrl });
    await hold.connect();
    try {
      await hold.query('BEGIN');
      await hold.query(`SELECT pg_advisory_xact_lock($1::int, hashtext('en'))`, [b.ids.posts]);
      const before = await b.counts();
      const pending = b.create('posts', { items: [{ state: 'published', data: { title: 'a', code: 'race-free' } }, { state: 'published', data: { title: 'b', code: 'race-taken' } }] });
      // The request has validated and written, and now waits for the lock this client holds.
      await expect.poll(async () => (await hold.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)).rows[0].n, { timeout: 5000 }).toBe(1);
      // Another writer's row with one of the values commits meanwhile (the request cannot see it yet).
      // (Written directly: every API create of the collection would wait for the held lock.)
      await t.database.query(
        `INSERT INTO entries (uuid, project_id, collection_id, locale, data, is_draft_dirty, updated_at)
         VALUES (gen_random_uuid(), $1::int, $2::int, 'en', '{"title": "other", "code": "race-taken"}', true, now())`,
        [b.p.id, b.ids.posts],
      );
      await hold.query('COMMIT');
      const res = await pending;
      expect(res.status, res.text).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['items.1.data.code']);
      const after = await b.counts();
      // Only the other writer's entry remains.
      expect(after).toEqual({ entries: before.entries + 1, versions: before.versions, outbox: before.outbox });
    } finally {
      await hold.query('ROLLBACK').catch(() => {});
      await hold.end();
    }
  });

  it('two concurrent requests with the same value: exactly one is created', async () => {
    const before = await b.counts();
    const both = await Promise.all([0, 1].map((k) => b.create('posts', { items: [{ data: { title: `twin ${k}`, code: 'twin' } }] })));
    expect(both.map((r) => r.status).sort()).toEqual([201, 422]);
    expect((await b.counts()).entries).toBe(before.entries + 1);
  });

  it('a value given twice in one request fails on the later index, and nothing is written', async () => {
    const before = await b.counts();
    const res = await b.create('posts', { items: [{ data: { title: 'x', code: 'dup' } }, { data: { title: 'y', code: 'dup' } }] });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['items.1.data.code']);
    expect(await b.counts()).toEqual(before);
  });
});
