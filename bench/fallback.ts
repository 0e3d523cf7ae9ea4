/**
 * Benchmark of locale fallback reads at a million entries (docs/entries.md, "Locale fallback").
 *
 *   npx tsx bench/fallback.ts [--rows=1000000] [--iterations=60] [--reseed] [--no-plans]
 *
 * Uses DATABASE_URL, or creates/reuses the database `cms_bench_fallback` on the local server
 * (TEST_PG_SERVER or postgresql://postgres@127.0.0.1:5432). Seeding is set-based SQL
 * (generate_series, as bench/where.ts), skipped when the database already holds the rows, then the
 * collection's field indexes and ANALYZE (autovacuum may be off).
 *
 * The collection has articles in `en`, `de` and `de-at` with the chain `de-at → de → en`, translated
 * as content usually is: every article in `en`, half of them in `de`, a tenth in `de-at` (half of
 * those without a `de` one), and a quarter of the `de-at` ones never-published drafts. Articles with
 * no translation have no translation group. At a million entries that is 625,000 groups.
 *
 * Rows measured (each what the REST route runs, built as src/entries/reads/list.ts and fallback.ts
 * build it):
 * - page: GET /api/articles?locale=de-at&fallback=true&where[views][lt]=…&paginate=25, the first
 *   page in the default order and the total of every resolved match;
 * - all: the same without `where` (the total counts every group);
 * - get: GET /api/articles/{uuid}?locale=de-at&fallback=true for an `en` uuid whose group answers in `de`.
 */
import { pathToFileURL } from 'node:url';
import { Prisma, type Database } from '../src/db/client.ts';
import { loadCollectionBySlug } from '../src/collections/model.ts';
import { ensureFieldIndexes, publishedReadCondition } from '../src/collections/field-indexes.ts';
import { compileWhereWithCount } from '../src/filtering/index.ts';
import { compileSort, sortHasIndexOrder } from '../src/entries/reads/sort.ts';
import { countStatement, pageWith } from '../src/entries/reads/list.ts';
import { alongChainStatement, resolvedCondition, resolvedCountStatement } from '../src/entries/reads/fallback.ts';
import { fallbackIndexStatements } from '../src/collections/fallback-indexes.ts';
import { ENTRY_COLUMNS } from '../src/entries/store/rows.ts';
import { localeChain } from '../src/projects/locale-chain.ts';
import type { LocaleFallback } from '../src/entries/types.ts';
import { percentile } from './lib/stats.ts';
import { benchArgs, openKeptBenchDatabase } from './lib/database.ts';

const PAGE = 25;
const WARMUP = 10;
const FALLBACKS = { 'de-at': 'de', de: 'en' };
/** `views < 1000`: 1 % of the articles, so the filtered total is in the thousands. */
const WHERE = { views: { lt: '1000' } };

export interface FallbackBenchOptions {
  rows: number;
  iterations: number;
  plans: boolean;
  reseed?: boolean;
  log?: (line: string) => void;
}

export interface FallbackMeasure {
  p50: number;
  p95: number;
  rows: number;
  total: number;
}

export interface FallbackBenchResult {
  /** 25-row page and total with a `where` on a field, along the 3-locale chain. */
  page: FallbackMeasure;
  /** The same without `where`: the total counts every group. */
  all: FallbackMeasure;
  /** Get by uuid along the chain. */
  get: FallbackMeasure;
  /** p50 of the plain (no fallback) `en` page with the same `where` and total, same run (ms). */
  ceiling: number;
  groups: number;
  seedSeconds: number | null;
}

interface Seeded {
  projectId: number;
  collectionId: number;
}

async function seeded(db: Database, rows: number): Promise<Seeded | null> {
  const found = await db.query<{ project_id: number; id: number; n: string }>(
    `SELECT c.project_id, c.id, (SELECT count(*) FROM entries e WHERE e.collection_id = c.id) AS n
       FROM collections c JOIN projects p ON p.id = c.project_id WHERE p.name = 'bench-fallback' AND c.slug = 'articles'`,
  );
  return found[0] && Number(found[0].n) === rows ? { projectId: found[0].project_id, collectionId: found[0].id } : null;
}

/** Articles in `en` for `rows` entries in all: each `en` article brings 0.6 translations on average. */
export const articlesFor = (rows: number): number => Math.max(20, Math.floor(rows / 1.6));

async function seed(db: Database, rows: number, log: (line: string) => void): Promise<Seeded> {
  const t0 = Date.now();
  await db.runScript(`DELETE FROM projects WHERE name = 'bench-fallback'`);
  const [project] = await db.query<{ id: number }>(
    `INSERT INTO projects (uuid, name, plan, locales, default_locale, locale_fallbacks, created_at, updated_at)
     VALUES (gen_random_uuid(), 'bench-fallback', 'pro', ARRAY['en', 'de', 'de-at'], 'en', $1::jsonb, now(), now()) RETURNING id`,
    [JSON.stringify(FALLBACKS)],
  );
  const [{ id: collectionId }] = await db.query<{ id: number }>(
    `INSERT INTO collections (uuid, project_id, slug, name, created_at, updated_at) VALUES (gen_random_uuid(), $1, 'articles', 'articles', now(), now()) RETURNING id`,
    [project.id],
  );
  await db.query(
    `INSERT INTO fields (uuid, collection_id, type, name, label, options, validations, "order", created_at, updated_at) VALUES
       (gen_random_uuid(), $1, 'text', 'title', 'Title', '{}', '{}', 0, now(), now()),
       (gen_random_uuid(), $1, 'text', 'category', 'Category', '{}', '{}', 1, now(), now()),
       (gen_random_uuid(), $1, 'number', 'views', 'Views', '{}', '{}', 2, now(), now())`,
    [collectionId],
  );

  // Alone in its database, the secondary indexes are dropped for the bulk load and rebuilt from
  // their own definitions after it, as bench/where.ts does.
  const [{ others }] = await db.query<{ others: string }>(`SELECT count(*) AS others FROM entries WHERE project_id <> $1`, [project.id]);
  const secondary =
    Number(others) === 0
      ? await db.query<{ name: string; def: string }>(
          `SELECT c.relname AS name, pg_get_indexdef(c.oid) AS def FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
            WHERE x.indrelid = 'entries'::regclass AND NOT x.indisunique AND NOT x.indisprimary`,
        )
      : [];
  for (const ix of secondary) await db.runScript(`DROP INDEX "${ix.name}"`);

  // Article i is in `de` when i is even and in `de-at` when i % 20 is 0 or 5 (half of those without
  // `de`); the `de-at` ones with i % 40 = 0 are never-published drafts. Translated articles share
  // the group tg + i.
  const articles = articlesFor(rows);
  const translated = `(i % 2 = 0 OR i % 20 = 5)`;
  const [{ tg }] = await db.query<{ tg: number }>(`SELECT coalesce(max(id), 0)::int AS tg FROM translation_groups`);
  await db.runScript(`
    INSERT INTO translation_groups (id, project_id) SELECT ${tg} + i, ${project.id} FROM generate_series(1, ${articles}) i WHERE ${translated};
    SELECT setval('translation_groups_id_seq', ${tg + articles + 1});`);
  const chunk = 50_000;
  for (let from = 1; from <= articles; from += chunk) {
    const to = Math.min(articles, from + chunk - 1);
    await db.runScript(`
      WITH src AS (
        SELECT i, l.locale, nextval('entries_id_seq') AS eid, nextval('entry_versions_id_seq') AS vid,
               CASE WHEN ${translated} THEN ${tg} + i END AS grp,
               NOT (l.locale = 'de-at' AND i % 40 = 0) AS published,
               timestamptz '2020-01-01' + make_interval(secs => i * 60) AS ts,
               jsonb_build_object('title', 'Article ' || i || ' ' || l.locale, 'category', 'cat-' || (i % 100),
                                  'views', (i::bigint * 7919) % 100000) AS d
          FROM generate_series(${from}, ${to}) AS i
          CROSS JOIN (VALUES ('en'), ('de'), ('de-at')) AS l(locale)
         WHERE l.locale = 'en' OR (l.locale = 'de' AND i % 2 = 0) OR (l.locale = 'de-at' AND i % 20 IN (0, 5))
         ORDER BY i, l.locale
      ), ins_entries AS (
        INSERT INTO entries (id, uuid, project_id, collection_id, locale, translation_group_id, state, data, published_data,
                             published_version_id, published_version_number, last_version_number, published_at, created_at, updated_at)
        SELECT eid, gen_random_uuid(), ${project.id}, ${collectionId}, locale, grp,
               CASE WHEN published THEN 'published' ELSE 'draft' END::"EntryState", d,
               CASE WHEN published THEN d END, CASE WHEN published THEN vid END, CASE WHEN published THEN 1 END, 1,
               CASE WHEN published THEN ts END, ts, ts FROM src
      )
      INSERT INTO entry_versions (id, uuid, entry_id, collection_id, version_number, locale, translation_group_id, snapshot, published_at, created_at, updated_at)
      SELECT vid, gen_random_uuid(), eid, ${collectionId}, 1, locale, grp, jsonb_build_object('fields', d, 'meta', jsonb_build_object('locale', locale)),
             CASE WHEN published THEN ts END, ts, ts FROM src`);
    log(`  ${to} / ${articles} articles (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  }
  const t1 = Date.now();
  for (const ix of secondary) await db.runScript(`SET maintenance_work_mem = '256MB'; ${ix.def}`);
  if (secondary.length) log(`rebuilt ${secondary.length} secondary indexes in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  return { projectId: project.id, collectionId };
}

async function timed(iterations: number, once: () => Promise<{ rows: number; total: number }>): Promise<FallbackMeasure> {
  let last = { rows: 0, total: 0 };
  for (let i = 0; i < Math.min(WARMUP, iterations); i++) last = await once();
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    last = await once();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), ...last };
}

/** Seeds (unless already seeded), then measures the fallback page, the unfiltered page and the get. */
export async function runFallbackBench(db: Database, o: FallbackBenchOptions): Promise<FallbackBenchResult> {
  const log = o.log ?? ((line: string) => console.log(line));
  let target = o.reseed ? null : await seeded(db, o.rows);
  let seedSeconds: number | null = null;
  if (!target) {
    const t0 = Date.now();
    target = await seed(db, o.rows, log);
    seedSeconds = (Date.now() - t0) / 1000;
  }
  const { projectId, collectionId } = target;
  const collection = await loadCollectionBySlug(db.prisma, projectId, 'articles');
  for (const f of collection.fields) await ensureFieldIndexes(db, collection.id, f);
  // As the application builds them when the collection is made (src/collections/schema-effects.ts).
  for (const stmt of fallbackIndexStatements(collectionId, { concurrently: true })) await db.runScript(stmt);
  // The bulk load leaves the visibility map unset (autovacuum may be off): index-only scans would
  // visit the heap for every row, which a table in service does not.
  if (seedSeconds !== null) await db.runScript('VACUUM entries');
  await db.runScript('ANALYZE entries');
  const [project] = await db.query<{ locales: string[]; locale_fallbacks: Record<string, string> }>(`SELECT locales, locale_fallbacks FROM projects WHERE id = $1`, [projectId]);
  const fallback: LocaleFallback = { requested: 'de-at', chain: localeChain({ locales: project.locales, localeFallbacks: project.locale_fallbacks }, 'de-at') };
  const [{ groups }] = await db.query<{ groups: number }>(
    `SELECT count(*)::int AS groups FROM entries WHERE collection_id = $1 AND deleted_at IS NULL AND published_version_id IS NOT NULL AND state = 'published' AND locale = 'en'`,
    [collectionId],
  );
  log(`collection ${collectionId}: chain ${fallback.chain.join(' → ')}; ${groups} groups`);

  const run = <T,>(statement: Prisma.Sql) => db.query<T>(statement.text, statement.values);
  const order = compileSort(undefined, collection, 'published_data');
  // As src/entries/reads/list.ts builds a published list's conditions and its COUNT.
  const conditions = async (where: unknown, fb: LocaleFallback | null) => {
    const live: Prisma.Sql[] = [Prisma.raw(`e.collection_id = ${Number(collectionId)}`), Prisma.sql`e.deleted_at IS NULL`, publishedReadCondition('e')];
    const conds = [...live];
    conds.splice(2, 0, fb ? resolvedCondition(fb, 'published', collectionId) : Prisma.sql`e.locale = ${'en'}`);
    const filter = await compileWhereWithCount(where, { db: db.prisma, projectId, collection, column: 'published_data', alias: 'e' });
    const all = Prisma.join(filter ? [...conds, filter.rows] : conds, ' AND ');
    const countWhere = filter && filter.count !== filter.rows ? Prisma.join([...conds, filter.count], ' AND ') : all;
    return {
      where: all,
      count: fb && fb.chain.length > 1 && !filter ? resolvedCountStatement(fb, Prisma.join(live, ' AND ')) : countStatement(countWhere),
      onePass: filter !== null && !sortHasIndexOrder(undefined, collection),
    };
  };
  const listOnce = (where: unknown, fb: LocaleFallback | null) => async () => {
    const c = await conditions(where, fb);
    const found = await pageWith(run, c.where, order, { partition: Prisma.raw(`e.collection_id = ${Number(collectionId)}`), limit: PAGE, offset: 0, onePass: c.onePass, count: c.count });
    return { rows: found.rows.length, total: found.total };
  };
  // An `en` article whose group answers in `de`: i = 2 (even, no `de-at`).
  const [{ uuid }] = await db.query<{ uuid: string }>(
    `SELECT uuid::text FROM entries WHERE collection_id = $1 AND locale = 'en' AND translation_group_id IS NOT NULL ORDER BY id OFFSET $2 LIMIT 1`,
    [collectionId, Math.floor(groups / 4)],
  );
  const getOnce = async () => {
    const rows = await run<{ locale: string }>(alongChainStatement(ENTRY_COLUMNS, collectionId, uuid, fallback, 'published'));
    return { rows: rows.length, total: rows.length };
  };

  const page = await timed(o.iterations, listOnce(WHERE, fallback));
  const ceiling = (await timed(o.iterations, listOnce(WHERE, null))).p50;
  const all = await timed(o.iterations, listOnce(undefined, fallback));
  const get = await timed(o.iterations, getOnce);
  log(`fallback page where=${JSON.stringify(WHERE)}: rows=${page.rows} total=${page.total} p50=${page.p50.toFixed(1)} ms p95=${page.p95.toFixed(1)} ms; plain en page p50=${ceiling.toFixed(1)} ms`);
  log(`fallback page, no where: rows=${all.rows} total=${all.total} p50=${all.p50.toFixed(1)} ms p95=${all.p95.toFixed(1)} ms`);
  log(`fallback get: p50=${get.p50.toFixed(2)} ms p95=${get.p95.toFixed(2)} ms`);
  if (o.plans) {
    const explain = async (label: string, s: Prisma.Sql) => {
      const plan = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${s.text}`, s.values);
      log(`--- plan (${label})`);
      for (const line of plan) log(`  ${line['QUERY PLAN']}`);
    };
    const filtered = await conditions(WHERE, fallback);
    const bare = await conditions(undefined, fallback);
    await explain('page, where', Prisma.sql`SELECT ${ENTRY_COLUMNS} FROM entries e WHERE ${filtered.where} ORDER BY ${order} LIMIT ${PAGE} OFFSET 0`);
    await explain('count, where', filtered.count);
    await explain('page', Prisma.sql`SELECT ${ENTRY_COLUMNS} FROM entries e WHERE ${bare.where} ORDER BY ${order} LIMIT ${PAGE} OFFSET 0`);
    await explain('count', bare.count);
    await explain('get', alongChainStatement(ENTRY_COLUMNS, collectionId, uuid, fallback, 'published'));
  }
  return { page, all, get, ceiling, groups, seedSeconds };
}



async function main(): Promise<void> {
  const args = benchArgs();
  const { db, url } = await openKeptBenchDatabase('cms_bench_fallback');
  console.log(`database: ${url.replace(/\/\/[^@]*@/, '//***@')}`);
  const r = await runFallbackBench(db, {
    rows: Number(args.get('rows') ?? 1_000_000),
    iterations: Number(args.get('iterations') ?? 60),
    plans: !args.has('no-plans'),
    reseed: args.has('reseed'),
  });
  const pass = r.page.p50 < 50 && r.page.p50 <= 4 * r.ceiling;
  console.log(`${pass ? 'PASS' : 'MISS'}: fallback page p50 ${r.page.p50.toFixed(1)} ms (< 50 ms and ≤ 4× the plain page: ${(r.page.p50 / r.ceiling).toFixed(1)}×), p95 ${r.page.p95.toFixed(1)} ms, total ${r.page.total}; unfiltered p50 ${r.all.p50.toFixed(1)} ms (total ${r.all.total}); get p50 ${r.get.p50.toFixed(2)} ms; plain en page p50 ${r.ceiling.toFixed(1)} ms`);
  await db.close();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
