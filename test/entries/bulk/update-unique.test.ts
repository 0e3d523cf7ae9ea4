import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { recordStatements } from '../../helpers/sql-count.ts';
import { bulkProject, type BulkProject } from './helpers.ts';

/**
 * A bulk update of a collection with a unique field (`posts.code`) writes before it takes the
 * write-scope lock, then rechecks the values under the lock and commits, as a create does
 * (src/entries/operations/update-without-lock.ts, src/entries/values/unique-recheck.ts): writers of one
 * collection wait for each other only for the recheck and the commit. A value taken meanwhile rolls
 * the write back, and the request answers as the locked transaction does.
 */
describe('bulk update with a unique field', () => {
  let t: TestApp;
  let b: BulkProject;
  beforeAll(async () => {
    t = await startTestApp();
    b = await bulkProject(t);
  });
  afterAll(() => t.close());


  const post = async (code: string) => (await b.single('posts', { data: { title: code, code } })).uuid;
  const codeOf = async (uuid: string) => ((await b.row(uuid)).data as { code?: string }).code;

  it('a publishing update locks after its write and its triggers, for the recheck and the commit only', async () => {
    const uuid = await post('stmt-a');
    await b.update('posts', { items: [{ uuid, state: 'published', data: { title: 'warm' } }] });
    const { result, texts } = await recordStatements(() => b.update('posts', { items: [{ uuid, state: 'published', data: { title: 'again', code: 'stmt-b' } }] }));
    expect(result.status, result.text).toBe(200);
    const at = (re: RegExp) => texts.findIndex((s) => re.test(s));
    const begin = at(/^BEGIN$/);
    const write = at(/UPDATE entries/);
    const triggers = at(/^SET CONSTRAINTS ALL IMMEDIATE$/);
    const lock = at(/pg_advisory_xact_lock/);
    const recheck = at(/AS taken/);
    const commit = at(/^COMMIT$/);
    expect([begin, write, triggers, lock, recheck, commit].every((i) => i >= 0), texts.join('\n---\n')).toBe(true);
    expect(begin < write && write < triggers && triggers < lock && lock < recheck && recheck < commit).toBe(true);
    expect(commit - begin).toBe(5);
    const row = await b.row(uuid);
    expect(row.state).toBe('published');
    expect((row.publishedData as { code?: string }).code).toBe('stmt-b');
  });

  it('a value committed by another writer while the update waits for the lock rolls it back: 422, the entry unchanged', async () => {
    const uuid = await post('race-mine');
    const hold = new pg.Client({ connectionString: t.databaseUrl });
    await hold.connect();
    try {
      await hold.query('BEGIN');
      await hold.query(`SELECT pg_advisory_xact_lock($1::int, hashtext('en'))`, [b.ids.posts]);
      const before = await b.counts();
      const pending = b.update('posts', { items: [{ uuid, state: 'published', data: { code: 'race-wanted' } }] });
      // The request has validated and written, and now waits for the lock this client holds.
      await expect
        .poll(
          async () =>
            (await hold.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)).rows[0].n,
          { timeout: 5000 },
        )
        .toBe(1);
      await t.database.query(
        `INSERT INTO entries (uuid, project_id, collection_id, locale, data, is_draft_dirty, updated_at)
         VALUES (gen_random_uuid(), $1::int, $2::int, 'en', '{"title": "other", "code": "race-wanted"}', true, now())`,
        [b.p.id, b.ids.posts],
      );
      await hold.query('COMMIT');
      const res = await pending;
      expect(res.status, res.text).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['items.0.data.code']);
      expect(await codeOf(uuid)).toBe('race-mine');
      // Only the other writer's entry was added; no version or event of the refused update is kept.
      expect(await b.counts()).toEqual({ entries: before.entries + 1, versions: before.versions, outbox: before.outbox });
    } finally {
      await hold.query('ROLLBACK').catch(() => {});
      await hold.end();
    }
  });

  it('two concurrent updates giving two entries the same value: exactly one succeeds', async () => {
    const [x, y] = [await post('twin-x'), await post('twin-y')];
    const both = await Promise.all([x, y].map((uuid) => b.update('posts', { items: [{ uuid, state: 'published', data: { code: 'twin-upd' } }] })));
    expect(both.map((r) => r.status).sort()).toEqual([200, 422]);
    const codes = [await codeOf(x), await codeOf(y)];
    expect(codes.filter((c) => c === 'twin-upd')).toHaveLength(1);
  });

  it('an update that keeps its unique values takes no lock: one statement, as in a collection without unique fields', async () => {
    const uuid = await post('keep-me');
    const { result, texts } = await recordStatements(() => b.update('posts', { items: [{ uuid, state: 'published', data: { title: 'new title' } }] }));
    expect(result.status, result.text).toBe(200);
    expect(await codeOf(uuid)).toBe('keep-me');
    expect(texts.filter((s) => /pg_advisory_xact_lock|^BEGIN$|AS taken/.test(s))).toEqual([]);
    expect((await b.row(uuid)).state).toBe('published');
  });

  it('while another writer holds the lock, an update that keeps its values commits and one that changes them waits', async () => {
    const [keep, change] = [await post('wait-keep'), await post('wait-change')];
    const hold = new pg.Client({ connectionString: t.databaseUrl });
    await hold.connect();
    try {
      await hold.query('BEGIN');
      await hold.query(`SELECT pg_advisory_xact_lock($1::int, hashtext('en'))`, [b.ids.posts]);
      const waiting = b.update('posts', { items: [{ uuid: change, state: 'published', data: { code: 'wait-changed' } }] });
      const kept = await b.update('posts', { items: [{ uuid: keep, state: 'published', data: { title: 'kept' } }] });
      expect(kept.status, kept.text).toBe(200);
      expect(await codeOf(change)).toBe('wait-change');
      await hold.query('COMMIT');
      expect((await waiting).status).toBe(200);
      expect(await codeOf(change)).toBe('wait-changed');
    } finally {
      await hold.query('ROLLBACK').catch(() => {});
      await hold.end();
    }
  });
});
