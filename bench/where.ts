/**
 * Benchmark of the list filter `where` at a million entries (issue 5; figures in docs/filtering.md).
 *
 *   npx tsx bench/where.ts [--reseed] [--rows=1000000] [--iterations=60] [--only=name,name] [--no-plans] [--two-pass]
 *
 * Uses DATABASE_URL, or creates/reuses the database `cms_bench_where` on the local server
 * (TEST_PG_SERVER or postgresql://postgres@127.0.0.1:5432). Seeding is set-based SQL
 * (generate_series) and is skipped when the database already holds the seeded rows.
 *
 * Each scenario runs what GET /api/posts?where...&sort=created_at:desc&paginate=25 runs: compileWhere
 * (including its lookups), then selectPage of src/entries/reads/list.ts (with a filter and this order: one
 * statement that sorts the matches and counts them for `total`). It reports p50/p95 of that whole step and prints
 * EXPLAIN ANALYZE of the statements. `--two-pass` runs the page query and a separate COUNT side by
 * side instead (how lists ran before), for a comparison in the same minute.
 */
import { pathToFileURL } from 'node:url';
import { Prisma, type Database } from '../src/db/client.ts';
import { loadCollectionBySlug, type CollectionSchema } from '../src/collections/model.ts';
import { compileWhere } from '../src/filtering/index.ts';
import { ensureFieldIndexes, publishedReadCondition } from '../src/collections/field-indexes.ts';
import { compileSort, sortHasIndexOrder } from '../src/entries/reads/sort.ts';
import { ENTRY_COLUMNS } from '../src/entries/store/rows.ts';
import { countStatement, onePassPageStatement, selectPage } from '../src/entries/reads/list.ts';
import { benchArgs, openKeptBenchDatabase } from './lib/database.ts';

const args = benchArgs();
const ROWS = Number(args.get('rows') ?? 1_000_000);
const AUTHORS = 10_000;
const ITERATIONS = Number(args.get('iterations') ?? 60);
const WARMUP = 10;
const SORT = 'created_at:desc';
const PAGE = 25;

export interface Scenario {
  name: string;
  where: Record<string, unknown>;
  /** What the numbers should be read against. */
  note: string;
}

export const SCENARIOS: Scenario[] = [
  { name: 'eq-text', where: { category: 'cat-417' }, note: 'text eq, 1,000 matches (0.1 %)' },
  { name: 'eq-number', where: { views: '4242' }, note: 'number eq, ~10 matches' },
  { name: 'range-number', where: { views: { between: '1000,1999' } }, note: 'number between, ~10,000 matches (1 %)' },
  { name: 'range-number-narrow', where: { views: { gt: '99900' } }, note: 'number gt, ~1,000 matches' },
  { name: 'range-date', where: { published_on: { gte: '2024-01-01', lt: '2024-02-01' } }, note: 'date range, ~15,500 matches' },
  { name: 'like', where: { title: { like: 'beef' } }, note: 'like on text, ~450 matches' },
  { name: 'relation-nested-eq', where: { author: { name: 'Author 42' } }, note: 'author name eq: 1 author, 100 posts (semi-join)' },
  { name: 'relation-nested-like', where: { author: { name: { like: 'Author 42' } } }, note: 'author name like: 111 authors, 11,100 posts (semi-join)' },
  { name: 'or', where: { or: [{ category: 'cat-7' }, { views: { between: '5000,5099' } }] }, note: 'OR of text eq and number range, ~2,000 matches' },
  { name: 'broad-boolean', where: { active: 'true' }, note: 'boolean eq, 500,000 matches: the COUNT reads half the collection' },
];

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}


/** What bench/main.ts passes in; the CLI fills it from its flags. */
export interface WhereBenchOptions {
  rows: number;
  iterations: number;
  only?: string[];
  plans: boolean;
  reseed?: boolean;
  /** Page query and COUNT as two statements side by side (the shape before selectPage's one pass). */
  twoPass?: boolean;
  log?: (line: string) => void;
}

export interface WhereResult {
  name: string;
  note: string;
  p50: number;
  p95: number;
  rows: number;
  total: number;
}

/** Authors scale down with small row counts so a quick run seeds quickly. */
const authorsFor = (rows: number) => Math.min(AUTHORS, Math.max(100, Math.floor(rows / 100)));

async function seeded(db: Database, ROWS: number): Promise<{ projectId: number } | null> {
  const rows = await db.query<{ project_id: number; n: string }>(
    `SELECT c.project_id, (SELECT count(*) FROM entries e WHERE e.collection_id = c.id) AS n
       FROM collections c JOIN projects p ON p.id = c.project_id WHERE p.name = 'bench-where' AND c.slug = 'posts'`,
  );
  return rows[0] && Number(rows[0].n) === ROWS ? { projectId: rows[0].project_id } : null;
}

async function seed(db: Database, ROWS: number, log: (line: string) => void): Promise<number> {
  const AUTHORS = authorsFor(ROWS);
  const t0 = Date.now();
  await db.runScript(`DELETE FROM projects WHERE name = 'bench-where'`);
  const [project] = await db.query<{ id: number }>(
    `INSERT INTO projects (uuid, name, plan, locales, default_locale, created_at, updated_at)
     VALUES (gen_random_uuid(), 'bench-where', 'pro', ARRAY['en'], 'en', now(), now()) RETURNING id`,
  );
  const collection = async (slug: string) =>
    (await db.query<{ id: number }>(
      `INSERT INTO collections (uuid, project_id, slug, name, created_at, updated_at) VALUES (gen_random_uuid(), $1, $2, $2, now(), now()) RETURNING id`,
      [project.id, slug],
    ))[0].id;
  const field = (cid: number, name: string, type: string, order: number, options: object = {}) =>
    db.query(
      `INSERT INTO fields (uuid, collection_id, type, name, label, options, validations, "order", created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $3, $4::jsonb, '{}'::jsonb, $5, now(), now())`,
      [cid, type, name, JSON.stringify(options), order],
    );
  const authors = await collection('authors');
  await field(authors, 'name', 'text', 0);
  const posts = await collection('posts');
  await field(posts, 'title', 'text', 0);
  await field(posts, 'category', 'text', 1);
  await field(posts, 'views', 'number', 2);
  await field(posts, 'active', 'boolean', 3);
  await field(posts, 'published_on', 'date', 4);
  await field(posts, 'author', 'relation', 5, { relation: { collection: authors, type: 1 } });

  // In a database that holds only this benchmark, secondary indexes are dropped for the bulk load
  // and rebuilt from their own definitions after it (one build is far cheaper than a million
  // incremental GIN updates); the result is the same set of indexes the migrations create.
  const [{ others }] = await db.query<{ others: string }>(`SELECT count(*) AS others FROM entries WHERE project_id <> $1`, [project.id]);
  const secondary =
    Number(others) === 0
      ? await db.query<{ name: string; def: string }>(
          `SELECT c.relname AS name, pg_get_indexdef(c.oid) AS def FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
            WHERE x.indrelid = 'entries'::regclass AND NOT x.indisunique AND NOT x.indisprimary`,
        )
      : [];
  for (const ix of secondary) await db.runScript(`DROP INDEX "${ix.name}"`);

  // Entries and their first version reference each other; both are inserted by one statement so the
  // foreign keys are checked once both rows exist. Ids are drawn from the sequences up front.
  // Chunks of 100k rows keep each transaction (and the progress log) reasonable.
  const insert = async (cid: number, n: number, dataSql: string, withAuthors = false) => {
    const chunk = 100_000;
    for (let from = 1; from <= n; from += chunk) {
      const to = Math.min(n, from + chunk - 1);
      await db.runScript(`
      WITH ${withAuthors ? `a AS (SELECT array_agg(uuid::text ORDER BY id) AS arr FROM entries WHERE collection_id = ${authors}),` : ''} src AS (
        SELECT i, nextval('entries_id_seq') AS eid, nextval('entry_versions_id_seq') AS vid,
               timestamptz '2020-01-01' + make_interval(secs => i * 60) AS ts, ${dataSql} AS d
          FROM generate_series(${from}, ${to}) AS i ${withAuthors ? ', a' : ''}
      ), ins_entries AS (
        INSERT INTO entries (id, uuid, project_id, collection_id, locale, state, data, published_data,
                             published_version_id, published_version_number, last_version_number, published_at, created_at, updated_at)
        SELECT eid, gen_random_uuid(), ${project.id}, ${cid}, 'en', 'published', d, d, vid, 1, 1, ts, ts, ts FROM src
      )
      INSERT INTO entry_versions (id, uuid, entry_id, collection_id, version_number, locale, snapshot, published_at, created_at, updated_at)
      SELECT vid, gen_random_uuid(), eid, ${cid}, 1, 'en', jsonb_build_object('fields', d, 'meta', jsonb_build_object('locale', 'en')), ts, ts, ts FROM src`);
      if (n > chunk) log(`  ${to} / ${n} posts (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    }
  };
  await insert(authors, AUTHORS, `jsonb_build_object('name', 'Author ' || i)`);
  await insert(
    posts,
    ROWS,
    `jsonb_build_object(
        'title', 'Post ' || i || ' ' || md5(i::text),
        'category', 'cat-' || (i % 1000),
        'views', (i::bigint * 7919) % 100000,
        'active', i % 2 = 0,
        'published_on', to_char(date '2020-01-01' + (i % 2000), 'YYYY-MM-DD'),
        'author', a.arr[(i % ${AUTHORS}) + 1])`,
    true,
  );
  const t2 = Date.now();
  for (const ix of secondary) await db.runScript(ix.def);
  if (secondary.length) log(`rebuilt ${secondary.length} secondary indexes in ${((Date.now() - t2) / 1000).toFixed(1)} s`);
  log(`seeded ${ROWS} posts + ${AUTHORS} authors in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return project.id;
}

async function main(): Promise<void> {
  const { db, url } = await openKeptBenchDatabase('cms_bench_where', 10);
  console.log(`database: ${url.replace(/\/\/[^@]*@/, '//***@')}`);
  const results = await runWhereBench(db, {
    rows: ROWS,
    iterations: ITERATIONS,
    only: args.get('only')?.split(','),
    plans: !args.has('no-plans'),
    reseed: args.has('reseed'),
    twoPass: args.has('two-pass'),
  });
  console.log('\n| scenario | what | total | p50 ms | p95 ms |\n|---|---|---|---|---|');
  for (const r of results) console.log(`| ${r.name} | ${r.note} | ${r.total} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} |`);
  await db.close();
}

/** Seeds (unless already seeded with `rows` posts), builds the per-field indexes, runs the scenarios. */
export async function runWhereBench(db: Database, o: WhereBenchOptions): Promise<WhereResult[]> {
  const log = o.log ?? ((line: string) => console.log(line));
  let projectId = (await seeded(db, o.rows))?.projectId;
  if (!projectId || o.reseed) {
    projectId = await seed(db, o.rows, log);
  }
  const prisma = db.prisma;
  const posts = await loadCollectionBySlug(prisma, projectId, 'posts');
  const t1 = Date.now();
  // Every field of both collections, as the application builds them when fields are created (the
  // nested filters search the authors' names through the authors' own index).
  for (const c of [posts, await loadCollectionBySlug(prisma, projectId, 'authors')]) {
    for (const f of c.fields) await ensureFieldIndexes(db, c.id, f);
  }
  log(`per-field indexes ready in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  await db.runScript('VACUUM ANALYZE entries');
  await printSizes(db, log);

  const results: WhereResult[] = [];
  for (const s of SCENARIOS.filter((x) => !o.only || o.only.includes(x.name))) {
    const r = await runScenario(db, posts, projectId, s, o, log);
    results.push({ name: s.name, note: s.note, ...r });
  }
  return results;
}

async function listSql(db: Database, collection: CollectionSchema, projectId: number, where: unknown) {
  const column = 'published_data' as const;
  const conds: Prisma.Sql[] = [
    Prisma.sql`e.collection_id = ${collection.id}`,
    Prisma.sql`e.deleted_at IS NULL`,
    publishedReadCondition('e'),
  ];
  const filter = await compileWhere(where, { db: db.prisma, projectId, collection, column, alias: 'e' });
  if (filter) conds.push(filter);
  const cond = Prisma.join(conds, ' AND ');
  const order = compileSort(SORT, collection, column);
  return {
    where: cond,
    order,
    // As src/entries/reads/list.ts decides it.
    onePass: filter !== null && !sortHasIndexOrder(SORT, collection),
    page: Prisma.sql`SELECT ${ENTRY_COLUMNS} FROM entries e WHERE ${cond} ORDER BY ${order} LIMIT ${PAGE} OFFSET 0`,
    count: countStatement(cond),
  };
}

async function runScenario(db: Database, posts: CollectionSchema, projectId: number, s: Scenario, o: WhereBenchOptions, log: (line: string) => void) {
  const once = async () => {
    const q = await listSql(db, posts, projectId, s.where);
    if (o.twoPass) {
      const [rows, [{ total }]] = await Promise.all([
        db.prisma.$queryRaw<unknown[]>(q.page),
        db.prisma.$queryRaw<Array<{ total: number }>>(q.count),
      ]);
      return { rows: rows.length, total };
    }
    const { rows, total } = await selectPage(db.prisma, q.where, q.order, { partition: Prisma.raw(`e.collection_id = ${Number(posts.id)}`), limit: PAGE, offset: 0, onePass: q.onePass });
    return { rows: rows.length, total };
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
  log(`\n=== ${s.name}: ${s.note}\nwhere=${JSON.stringify(s.where)} sort=${SORT} paginate=${PAGE}`);
  log(`rows=${last.rows} total=${last.total} p50=${p50.toFixed(1)} ms p95=${p95.toFixed(1)} ms`);
  if (o.plans) {
    const q = await listSql(db, posts, projectId, s.where);
    const statements: Array<[string, Prisma.Sql]> =
      o.twoPass || !q.onePass ? [['page', q.page], ['count', q.count]] : [['page + count', onePassPageStatement(Prisma.raw(`e.collection_id = ${Number(posts.id)}`), q.where, q.order, PAGE, 0)]];
    for (const [label, stmt] of statements) {
      const plan = await db.prisma.$queryRaw<Array<{ 'QUERY PLAN': string }>>(Prisma.sql`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${stmt}`);
      log(`--- plan (${label})`);
      for (const line of plan) log(`  ${line['QUERY PLAN']}`);
    }
  }
  return { p50, p95, ...last };
}

async function printSizes(db: Database, log: (line: string) => void): Promise<void> {
  const rows = await db.query<{ name: string; size: string }>(
    `SELECT c.relname AS name, pg_size_pretty(pg_relation_size(c.oid)) AS size
       FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
      WHERE i.indrelid = 'entries'::regclass ORDER BY pg_relation_size(c.oid) DESC`,
  );
  const [table] = await db.query<{ size: string }>(`SELECT pg_size_pretty(pg_table_size('entries')) AS size`);
  log(`entries table: ${table.size}; indexes: ${rows.map((r) => `${r.name} ${r.size}`).join(', ')}`);
}

// Runs as a CLI only when executed directly; bench/main.ts imports runWhereBench.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
