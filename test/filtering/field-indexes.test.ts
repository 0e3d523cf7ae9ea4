import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../src/db/client.ts';
import { loadCollectionBySlug, type CollectionSchema } from '../../src/collections/model.ts';
import { compileWhere } from '../../src/filtering/index.ts';
import { compileSort, sortHasIndexOrder } from '../../src/entries/reads/sort.ts';
import { dropFieldIndexes, fieldIndexName, publishedReadCondition } from '../../src/collections/field-indexes.ts';
import { ensureCollectionIndexes } from '../../src/collections/collection-repair.ts';
import { migrationsDir } from '../../src/db/migrate.ts';
import { postsWorld } from './fixture.ts';
import type { FilterWorld } from './world.ts';

let w: FilterWorld;
let posts: CollectionSchema;
const fieldId = (name: string) => posts.byName.get(name)!.id;

const ofPosts = (name: string) => posts.fields.some((f) => name.startsWith(`entries_f${f.id}_`));

/** Per-field filter index definitions of the posts collection (not the unique ones: unique-indexes.ts). */
async function indexDefs(): Promise<Map<string, string>> {
  const rows = await w.t.database.query<{ name: string; def: string }>(
    `SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE tablename ~ '^entries_c[0-9]+$' AND indexname ~ '^entries_f[0-9]+_[dp]_'`,
  );
  return new Map(rows.filter((r) => ofPosts(r.name)).map((r) => [r.name, r.def]));
}

async function statistics(): Promise<string[]> {
  const rows = await w.t.database.query<{ name: string }>(`SELECT stxname AS name FROM pg_statistic_ext ORDER BY 1`);
  return rows.map((r) => r.name).filter(ofPosts);
}

class Rollback extends Error {
  constructor(readonly plan: string) {
    super('rollback');
  }
}

/**
 * Whether `index` can serve the compiled filter: inside a transaction that is rolled back, every
 * other index of entries but the primary key is dropped (the unique one on published_version_id
 * too: the filler rows have no version, so it would look like the cheapest way to a published read) and sequential scans are off, so the planner uses
 * the index if the compiled expression matches it (at test sizes it would otherwise happily walk the
 * whole collection through any partial index). The conditions are those of a list read of the
 * column's state (src/entries/reads/list.ts), which the index predicate must be implied by.
 */
async function planWithOnly(index: string, where: unknown, column: 'data' | 'published_data' = 'data', sort?: string): Promise<string> {
  const db = w.t.database.prisma;
  const cond = (await compileWhere(where, { db, projectId: w.project.id, collection: posts, column, alias: 'e' })) ?? Prisma.sql`TRUE`;
  const page = sort === undefined ? Prisma.empty : Prisma.sql`ORDER BY ${compileSort(sort, posts, column)} LIMIT 25`;
  try {
    await db.$transaction(async (tx) => {
      // The collection's partition's indexes; one inherited from an index of \`entries\` goes with its parent.
      const others = await tx.$queryRaw<Array<{ name: string }>>`
        SELECT DISTINCT coalesce(p.relname, c.relname) AS name FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
          LEFT JOIN pg_inherits h ON h.inhrelid = c.oid LEFT JOIN pg_class p ON p.oid = h.inhparent
         WHERE x.indrelid = to_regclass(${'entries_c' + posts.id}) AND NOT x.indisprimary AND coalesce(p.relname, c.relname) <> ${index}`;
      for (const o of others) await tx.$executeRawUnsafe(`DROP INDEX "${o.name}"`);
      await tx.$executeRaw`SET LOCAL enable_seqscan = off`;
      const read = column === 'published_data' ? Prisma.sql`AND ${publishedReadCondition('e')}` : Prisma.empty;
      const rows = await tx.$queryRaw<Array<{ 'QUERY PLAN': string }>>(
        Prisma.sql`EXPLAIN SELECT e.id FROM entries e WHERE e.collection_id = ${posts.id} AND e.deleted_at IS NULL ${read} AND ${cond} ${page}`,
      );
      throw new Rollback(rows.map((r) => r['QUERY PLAN']).join('\n'));
    });
  } catch (err) {
    if (err instanceof Rollback) return err.plan;
    throw err;
  }
  throw new Error('unreachable');
}

beforeAll(async () => {
  w = await postsWorld();
  posts = await loadCollectionBySlug(w.t.database.prisma, w.project.id, 'posts');
  await ensureCollectionIndexes(w.t.database, posts);
  // Enough rows that the planner prefers a selective index over walking the whole collection.
  await w.t.database.runScript(`
    INSERT INTO entries (uuid, project_id, collection_id, locale, state, data, published_data, created_at, updated_at)
    SELECT gen_random_uuid(), ${w.project.id}, ${posts.id}, 'en', 'published', d, d, now(), now()
      FROM generate_series(1, 20000) AS i,
           LATERAL (SELECT jsonb_build_object('title', 'filler ' || md5(i::text), 'body', md5(i::text), 'views', i % 1000,
                                              'day', to_char(date '2020-01-01' + (i % 2000), 'YYYY-MM-DD'),
                                              'at', to_char(timestamp '2020-01-01' + make_interval(hours => i), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) AS d) AS x;
    ANALYZE entries;`);
});
afterAll(() => w?.close());

describe('per-field filter indexes', () => {
  it('creates one index per filterable field and state column, with statistics for btree ones', async () => {
    const defs = await indexDefs();
    for (const name of ['title', 'body', 'slug', 'email', 'views', 'day', 'at', 'author', 'cover']) {
      expect(defs.has(fieldIndexName(fieldId(name), 'data')), name).toBe(true);
      expect(defs.has(fieldIndexName(fieldId(name), 'published_data')), name).toBe(true);
    }
    // Arrays and nested values have no expression index (GIN containment serves their eq/in).
    for (const name of ['tags', 'scores', 'cats', 'span', 'authors', 'gallery', 'meta', 'seo', 'active', 'secret']) {
      expect(defs.has(fieldIndexName(fieldId(name), 'data')), name).toBe(false);
    }
    expect(defs.get(fieldIndexName(fieldId('title'), 'data'))).toMatch(/USING gin .*gin_trgm_ops.*WHERE \(\(collection_id = \d+\) AND \(deleted_at IS NULL\)\)$/);
    // Published-column indexes hold only what a published read sees (src/entries/reads/list.ts).
    for (const name of ['title', 'views']) {
      expect(defs.get(fieldIndexName(fieldId(name), 'published_data'))).toMatch(
        /WHERE \(\(collection_id = \d+\) AND \(deleted_at IS NULL\) AND \(state = 'published'::"EntryState"\) AND \(published_version_id IS NOT NULL\)\)$/,
      );
    }
    expect(await statistics()).toContain(`entries_f${fieldId('views')}_p_stat_x`);
  });

  it.each<[string, unknown, 'data' | 'published_data', string]>([
    ['number range', { views: { gt: '995' } }, 'published_data', 'views'],
    ['number between', { views: { between: '1,9' } }, 'data', 'views'],
    ['like on text', { title: { like: 'hello' } }, 'data', 'title'],
    ['like on richtext', { body: { like: 'bold' } }, 'published_data', 'body'],
    ['date range', { day: { gte: '2026-01-01', lt: '2026-02-01' } }, 'data', 'day'],
    ['date-time day', { at: '2026-01-10' }, 'data', 'at'],
  ])('the compiled %s can use its index', async (_label, where, column, field) => {
    const index = fieldIndexName(fieldId(field), column);
    const plan = await planWithOnly(index, where, column);
    expect(plan, plan).toMatch(new RegExp(`(Index|Bitmap Index) Scan (using|on) ${index}`));
    // The read's own conditions are all implied by the index predicate: nothing is re-tested per row
    // (like is lossy in a trigram index and stays a Recheck Cond, which is not a Filter).
    expect(plan, plan).not.toMatch(/Filter:/);
  });

  it('eq and in use the table-wide containment index', async () => {
    expect(await planWithOnly('entries_data_path_x', { title: { in: 'a,b' } })).toContain('Bitmap Index Scan on entries_data_path_x');
    expect(await planWithOnly('entries_published_data_path_x', { views: '10' }, 'published_data')).toContain('Bitmap Index Scan on entries_published_data_path_x');
    // A compiled filter that cannot use the index gives a plan without it (the check above can fail).
    expect(await planWithOnly('entries_data_path_x', { views: { gt: '3' } })).not.toContain('entries_data_path_x');
  });

  // selectPage (src/entries/reads/list.ts) counts in the page query itself when no index yields the order.
  it.each<[string | undefined, string, 'data' | 'published_data']>([
    [undefined, 'entries_pkey', 'published_data'],
    ['id:asc', 'entries_pkey', 'data'],
    ['views:asc,title:desc', 'views', 'data'],
    ['day', 'day', 'data'],
    ['views:desc', 'views', 'published_data'],
    ['id:desc', 'entries_pkey', 'data'],
    ['title:asc', 'title', 'data'],
    ['created_at:desc', 'entries_pkey', 'published_data'],
  ])('sortHasIndexOrder(%s) tells whether an index yields the order', async (sort, on, column) => {
    const index = on === 'entries_pkey' ? on : fieldIndexName(fieldId(on), column);
    const plan = await planWithOnly(index, undefined, column, sort);
    // A full Sort above the scan means every row is read first; an Incremental Sort rides the index.
    const walks = !/^(\s*->)?\s*Sort {2}\(/m.test(plan.split('\n').slice(0, 3).join('\n'));
    expect(walks, plan).toBe(sortHasIndexOrder(sort, posts));
  });

});
