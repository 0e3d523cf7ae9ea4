/**
 * Benchmark of full-text search at a million entries (docs/filtering.md, "Search").
 *
 *   npx tsx bench/search.ts [--rows=1000000] [--iterations=60] [--reseed] [--no-plans]
 *
 * Uses DATABASE_URL, or creates/reuses the database `cms_bench_search` on the local server
 * (TEST_PG_SERVER or postgresql://postgres@127.0.0.1:5432). Seeding is one INSERT … SELECT over
 * generate_series per 100k rows, through the entries trigger that builds the vectors (the path every
 * write takes), the GIN index built once afterwards, then ANALYZE (autovacuum may be off). It is
 * skipped when the database already holds the rows.
 *
 * Each run is what GET /api/articles?search=<two words>&paginate=25 runs: the search compiled by
 * src/filtering/search/compile.ts, the list's conditions and ranked order, and the one-pass page of
 * src/entries/reads/list.ts (25 rows by relevance and the total of all matches, one statement over pg).
 * The words of the seeded text follow a skewed (Zipf-like) frequency, and the query's two words are
 * mid-frequency ones, so the total is in the thousands: every match is ranked, not just 25.
 */
import { pathToFileURL } from 'node:url';
import { Prisma, type Database } from '../src/db/client.ts';
import { publishedReadCondition } from '../src/collections/field-indexes.ts';
import { searchIndexStatements } from '../src/collections/search-indexes.ts';
import { parseSearch } from '../src/filtering/search/parse.ts';
import { compileSearch } from '../src/filtering/search/compile.ts';
import { pageWith } from '../src/entries/reads/list.ts';
import { ENTRY_COLUMNS } from '../src/entries/store/rows.ts';
import { benchArgs, openKeptBenchDatabase } from './lib/database.ts';

const PAGE = 25;
const WARMUP = 10;
/** Vocabulary size; word k of the seeded text is drawn with weight ~ k^(-2/3) (floor(V * random()^3)). */
const VOCABULARY = 5000;
/** Ranks of the query's two words (0 = most frequent): each is in a few % of the entries. */
const QUERY_RANKS = [100, 150];

export interface SearchBenchOptions {
  rows: number;
  iterations: number;
  plans: boolean;
  reseed?: boolean;
  log?: (line: string) => void;
}

export interface SearchBenchResult {
  query: string;
  p50: number;
  p95: number;
  rows: number;
  total: number;
  /** p50 of the bare index match in the same run (ms). */
  ceiling: number;
  seedSeconds: number | null;
}

/** Vocabulary word k: `w<k>`, one lexeme in every configuration (cheap to generate by the million). */
const word = (k: number): string => `w${k}`;

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

async function seeded(db: Database, rows: number): Promise<{ projectId: number; collectionId: number } | null> {
  const found = await db.query<{ project_id: number; id: number; n: string }>(
    `SELECT c.project_id, c.id, (SELECT count(*) FROM entries e WHERE e.collection_id = c.id) AS n
       FROM collections c JOIN projects p ON p.id = c.project_id WHERE p.name = 'bench-search' AND c.slug = 'articles'`,
  );
  return found[0] && Number(found[0].n) === rows ? { projectId: found[0].project_id, collectionId: found[0].id } : null;
}

async function seed(db: Database, rows: number, log: (line: string) => void): Promise<{ projectId: number; collectionId: number }> {
  const t0 = Date.now();
  await db.runScript(`DELETE FROM projects WHERE name = 'bench-search'`);
  const [project] = await db.query<{ id: number }>(
    `INSERT INTO projects (uuid, name, plan, locales, default_locale, created_at, updated_at)
     VALUES (gen_random_uuid(), 'bench-search', 'pro', ARRAY['en'], 'en', now(), now()) RETURNING id`,
  );
  const [{ id: collectionId }] = await db.query<{ id: number }>(
    `INSERT INTO collections (uuid, project_id, slug, name, created_at, updated_at) VALUES (gen_random_uuid(), $1, 'articles', 'articles', now(), now()) RETURNING id`,
    [project.id],
  );
  // Through the fields trigger, as the API's field operations: the collection's searchable fields follow.
  await db.query(
    `INSERT INTO fields (uuid, collection_id, type, name, label, options, validations, "order", created_at, updated_at) VALUES
       (gen_random_uuid(), $1, 'text', 'title', 'Title', '{}', '{}', 0, now(), now()),
       (gen_random_uuid(), $1, 'longtext', 'body', 'Body', '{}', '{}', 1, now(), now())`,
    [collectionId],
  );
  const words = (n: number) => `(SELECT string_agg('w' || floor(${VOCABULARY} * random() ^ 3)::int, ' ') FROM generate_series(1, ${n} + (i % 2)))`;
  // The bulk load computes the vectors set-based, as the entries trigger would (checked on a sample
  // below): the trigger's per-row function call tripled the load time of a million rows.
  await db.runScript('ALTER TABLE entries DISABLE TRIGGER entries_search_x');
  const vector = `setweight(to_tsvector('english', d ->> 'title'), 'A') || setweight(to_tsvector('english', d ->> 'body'), 'D')`;
  const chunk = 100_000;
  for (let from = 1; from <= rows; from += chunk) {
    const to = Math.min(rows, from + chunk - 1);
    // Entries and their first version reference each other: one statement inserts both.
    await db.runScript(`
      WITH src AS (
        SELECT i, nextval('entries_id_seq') AS eid, nextval('entry_versions_id_seq') AS vid,
               timestamptz '2020-01-01' + make_interval(secs => i * 60) AS ts,
               jsonb_build_object('title', ${words(6)}, 'body', ${words(40)}) AS d
          FROM generate_series(${from}, ${to}) AS i
      ), ins_entries AS (
        INSERT INTO entries (id, uuid, project_id, collection_id, locale, state, data, published_data,
                             published_version_id, published_version_number, last_version_number, published_at, created_at, updated_at,
                             search_draft, search_published)
        SELECT eid, gen_random_uuid(), ${project.id}, ${collectionId}, 'en', 'published', d, d, vid, 1, 1, ts, ts, ts, v, v
          FROM (SELECT *, ${vector} AS v FROM src) s
      )
      INSERT INTO entry_versions (id, uuid, entry_id, collection_id, version_number, locale, snapshot, published_at, created_at, updated_at)
      SELECT vid, gen_random_uuid(), eid, ${collectionId}, 1, 'en', jsonb_build_object('fields', d, 'meta', jsonb_build_object('locale', 'en')), ts, ts, ts FROM src`);
    log(`  ${to} / ${rows} articles (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  }
  await db.runScript('ALTER TABLE entries ENABLE TRIGGER entries_search_x');
  const [{ differ }] = await db.query<{ differ: number }>(
    `SELECT count(*)::int AS differ FROM entries e JOIN collections c ON c.id = e.collection_id
      WHERE e.collection_id = $1 AND e.id % 1000 = 0 AND e.search_published IS DISTINCT FROM cms_search_vector_x(c.search_fields, e.locale, e.published_data)`,
    [collectionId],
  );
  if (differ > 0) throw new Error(`${differ} sampled vectors differ from what the entries trigger builds`);
  const t1 = Date.now();
  for (const stmt of searchIndexStatements(collectionId)) await db.runScript(`SET maintenance_work_mem = '256MB'; ${stmt}`);
  log(`search indexes built in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  return { projectId: project.id, collectionId };
}

/** Seeds (unless already seeded), then runs the two-word search `iterations` times after a warm-up. */
export async function runSearchBench(db: Database, o: SearchBenchOptions): Promise<SearchBenchResult> {
  const log = o.log ?? ((line: string) => console.log(line));
  // A load interrupted before it re-enabled the trigger leaves it off: on again, whatever happened.
  await db.runScript('ALTER TABLE entries ENABLE TRIGGER entries_search_x');
  let target = o.reseed ? null : await seeded(db, o.rows);
  let seedSeconds: number | null = null;
  if (!target) {
    const t0 = Date.now();
    target = await seed(db, o.rows, log);
    seedSeconds = (Date.now() - t0) / 1000;
  }
  for (const stmt of searchIndexStatements(target.collectionId)) await db.runScript(stmt);
  await db.runScript('ANALYZE entries');
  const [size] = await db.query<{ table: string; index: string }>(
    `SELECT pg_size_pretty(pg_table_size('entries_c${target.collectionId}')) AS table, pg_size_pretty(pg_relation_size('entries_c${target.collectionId}_search_p_x')) AS index`,
  );
  log(`entries table ${size.table}; published search index ${size.index}`);

  const text = QUERY_RANKS.map(word).join(' ');
  const query = parseSearch(text)!;
  // As src/entries/reads/list.ts builds a published list of every locale, searched and paginated.
  const search = compileSearch(query, { alias: 'e', column: 'search_published', locales: ['en'] });
  const where = Prisma.join([
    Prisma.raw(`e.collection_id = ${Number(target.collectionId)}`),
    Prisma.sql`e.deleted_at IS NULL`,
    publishedReadCondition('e'),
    search.match,
  ], ' AND ');
  const order = Prisma.sql`${search.score} DESC, e.id ASC`;
  const columns = Prisma.sql`${ENTRY_COLUMNS}, ${search.score} AS "searchScore"`;
  const run = <T,>(statement: Prisma.Sql) => db.query<T>(statement.text, statement.values);
  const once = async () => {
    const found = await pageWith(run, where, order, { partition: Prisma.raw(`e.collection_id = ${Number(target.collectionId)}`), limit: PAGE, offset: 0, onePass: true, columns });
    return { rows: found.rows.length, total: found.total };
  };
  let last = { rows: 0, total: 0 };
  for (let i = 0; i < WARMUP; i++) last = await once();
  const times: number[] = [];
  for (let i = 0; i < o.iterations; i++) {
    const t = performance.now();
    last = await once();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const p50 = percentile(times, 50);
  const p95 = percentile(times, 95);
  // Same-run ceiling: the bare index match (25 ids, no rank, no total, no row read back), which no
  // search can beat; on a loaded machine both move together.
  const bare = Prisma.sql`SELECT e.id FROM entries e WHERE ${where} LIMIT ${PAGE}`;
  const bareTimes: number[] = [];
  for (let i = 0; i < o.iterations; i++) {
    const t = performance.now();
    await run(bare);
    bareTimes.push(performance.now() - t);
  }
  bareTimes.sort((a, b) => a - b);
  const ceiling = percentile(bareTimes, 50);
  log(`search "${text}": rows=${last.rows} total=${last.total} p50=${p50.toFixed(1)} ms p95=${p95.toFixed(1)} ms; ceiling (bare match, 25 ids) p50=${ceiling.toFixed(1)} ms`);
  if (o.plans) {
    const { onePassPageStatement } = await import('../src/entries/reads/list.ts');
    const plan = await db.query<{ 'QUERY PLAN': string }>(
      ...((s: Prisma.Sql) => [`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${s.text}`, s.values] as const)(onePassPageStatement(Prisma.raw(`e.collection_id = ${Number(target.collectionId)}`), where, order, PAGE, 0, columns)),
    );
    for (const line of plan) log(`  ${line['QUERY PLAN']}`);
  }
  return { query: text, p50, p95, ceiling, ...last, seedSeconds };
}


async function main(): Promise<void> {
  const args = benchArgs();
  const { db, url } = await openKeptBenchDatabase('cms_bench_search');
  console.log(`database: ${url.replace(/\/\/[^@]*@/, '//***@')}`);
  const r = await runSearchBench(db, {
    rows: Number(args.get('rows') ?? 1_000_000),
    iterations: Number(args.get('iterations') ?? 60),
    plans: !args.has('no-plans'),
    reseed: args.has('reseed'),
  });
  console.log(`${r.p50 < 20 ? 'PASS' : 'MISS'}: search p50 ${r.p50.toFixed(1)} ms (< 20 ms), p95 ${r.p95.toFixed(1)} ms; ${r.rows} rows of ${r.total} matches; same-run ceiling (bare match) p50 ${r.ceiling.toFixed(1)} ms`);
  await db.close();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
