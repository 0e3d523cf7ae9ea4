/**
 * Benchmark of bulk create (issue 6; figures in docs/bulk.md).
 *
 *   npx tsx bench/bulk.ts            BENCH_DURATION (s per run, default 10), BENCH_CLIENTS (default 4)
 *
 * Starts the real server (`node dist/main.js`, bench/lib/processes.ts) as a child process on a fresh PostgreSQL database
 * (DATABASE_URL, else a `cms_bench_bulk_<random>` database on TEST_PG_SERVER or the local cluster,
 * dropped afterwards) and drives POST /api/bulk/posts/entries over loopback with autocannon: 50 items
 * of 8 fields each per request, 4 concurrent clients, once as drafts and once with
 * `state: published` (each item then also mints version 1). Target: p50 < 60 ms and > 2,000 entries/s.
 * Every request creates new rows, so the table grows during the run, as it would in production.
 * `cpu ms/req` is the CPU time the server process used per request (PostgreSQL's is not included):
 * on a shared, busy host it tells more than the latencies, which then mostly measure waiting for a core.
 * `db cpu ms/req` is the CPU time of the PostgreSQL backends serving this run's database, when they run on
 * this host (read from /proc; blank otherwise): unlike the whole cluster's, it is not inflated by other
 * databases' work on a shared server. Background writers (WAL writer, checkpointer, autovacuum) are not in it.
 * With BENCH_PG_PID=<postmaster pid> of a cluster only this run uses, the whole cluster's CPU per request too.
 * A third scenario creates published posts of the peers' model (title, slug unique, body ~370 characters,
 * views, published, author), as the peer harness does: a unique field takes the write-scope lock, so this is
 * the path where concurrent batches of one collection queue behind each other. Every batch needs fresh
 * slugs, so its own client sends them (one batch at a time per client, as the peers' bench does).
 * BENCH_ONLY=drafts|published|unique runs one scenario only.
 * With BENCH_CPU_PROF=<dir> the server runs under `node --cpu-prof` and leaves its profile there on exit
 * (open it in Chrome DevTools, or sum self time per function from the .cpuprofile JSON).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { createBenchProject, openBenchDatabase, redactUrl } from './lib/database.ts';
import { freePort, spawnChild, spawnTsx, waitHealthy } from './lib/processes.ts';
import { runLoad, type LoadResult } from './lib/load.ts';
import { must, type Api } from './lib/seed.ts';
import { int, ms, percentiles } from './lib/stats.ts';

const ITEMS = 50;
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 4);
const PG_PID = process.env.BENCH_PG_PID ? Number(process.env.BENCH_PG_PID) : undefined;
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF;
/** `drafts`, `published` or `unique`: run only that scenario (e.g. to profile one). */
const ONLY = process.env.BENCH_ONLY;

export interface BulkBenchRow {
  name: string;
  result: LoadResult;
  entriesPerSec: number;
  /** CPU time the server process tree used per successful request: comparable across busy and idle hosts. */
  serverCpuMsPerRequest: number;
  /** CPU time of the PostgreSQL backends connected to the bench database, per request (local cluster only). */
  dbCpuMsPerRequest?: number;
  /** Same for the PostgreSQL cluster whose postmaster is BENCH_PG_PID (a cluster only this run uses). */
  pgCpuMsPerRequest?: number;
  pass: boolean;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime (ms) of a process and all its descendants. */
function treeCpuMs(pid: number): number {
  const stat = (p: number): string[] | null => {
    try {
      const s = readFileSync(`/proc/${p}/stat`, 'utf8');
      return s.slice(s.lastIndexOf(')') + 2).split(' ');
    } catch {
      return null;
    }
  };
  const self = stat(pid);
  let total = self ? (Number(self[11]) + Number(self[12])) * TICK_MS : 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const f = stat(Number(d));
    if (f && Number(f[1]) === pid) total += treeCpuMs(Number(d));
  }
  return total;
}

/** CPU ms per backend pid of the sessions connected to the bench database; null when they are not local processes. */
async function backendCpu(bench: { db: { query<T>(sql: string): Promise<T[]> } }): Promise<Map<number, number> | null> {
  const rows = await bench.db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
  const out = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      if (!s.includes('(postgres)') && !s.includes('(postmaster)')) return null;
      out.set(pid, (Number(f[11]) + Number(f[12])) * TICK_MS);
    } catch {
      return null;
    }
  }
  return out;
}

/** authors(name) and posts with 8 fields: text, longtext, richtext, number, boolean, date, color, relation. */
async function createModel(api: Api): Promise<string[]> {
  await must(api, 'POST', '/api/collections', { name: 'Authors', slug: 'authors', fields: [{ type: 'text', label: 'Name', name: 'name' }] });
  await must(api, 'POST', '/api/collections', {
    name: 'Posts',
    slug: 'posts',
    fields: [
      { type: 'text', label: 'Title', name: 'title' },
      { type: 'longtext', label: 'Summary', name: 'summary' },
      { type: 'richtext', label: 'Body', name: 'body' },
      { type: 'number', label: 'Views', name: 'views' },
      { type: 'boolean', label: 'Featured', name: 'featured' },
      { type: 'date', label: 'Published on', name: 'published-on' },
      { type: 'color', label: 'Accent', name: 'accent' },
      { type: 'relation', label: 'Author', name: 'author', options: { relation: { collection: 'authors', type: 1 } } },
    ],
  });
  const made = await must<{ data: Array<{ uuid: string }> }>(api, 'POST', '/api/bulk/authors/entries', {
    items: Array.from({ length: 10 }, (_, i) => ({ state: 'published', data: { name: `Author ${i}` } })),
  });
  return made.data.map((a) => a.uuid);
}

/** The peer harness's model: a unique slug, published on create. */
async function createPeersModel(api: Api): Promise<void> {
  await must(api, 'POST', '/api/collections', {
    name: 'Articles',
    slug: 'articles',
    fields: [
      { type: 'text', label: 'Title', name: 'title' },
      { type: 'slug', label: 'Slug', name: 'slug', options: { slug: { field: 'title', readonly: false } } },
      { type: 'longtext', label: 'Body', name: 'body' },
      { type: 'number', label: 'Views', name: 'views' },
      { type: 'boolean', label: 'Published', name: 'published' },
      { type: 'relation', label: 'Author', name: 'author', options: { relation: { collection: 'authors', type: 1 } } },
    ],
  });
}

const peersItem = (tag: string, k: number, author: string) => ({
  state: 'published',
  data: { title: `Bulk ${tag} ${k}`, slug: `bulk-${tag}-${k}`, body: `Body of bulk post ${tag} ${k}. `.repeat(15).trim(), views: -1, published: true, author },
});

/** `clients` loops of one batch at a time for `durationSec`, each batch with slugs of its own. */
async function uniqueLoad(base: string, headers: Record<string, string>, authors: string[], clients: number, durationSec: number): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let seq = 0;
  const run = `${Date.now().toString(36)}`;
  const t0 = performance.now();
  const end = t0 + durationSec * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const tag = `${run}-${seq++}`;
        const items = Array.from({ length: ITEMS }, (_, k) => peersItem(tag, k, authors[k % authors.length]));
        const t = performance.now();
        const res = await fetch(`${base}/api/bulk/articles/entries`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ items }),
        });
        await res.arrayBuffer();
        latencies.push(performance.now() - t);
        if (res.status >= 300) {
          errors++;
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        }
      }
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  return { rps: (latencies.length - errors) / wall, ...percentiles(latencies), errors, total: latencies.length, statuses };
}

const item = (i: number, author: string, state?: string) => ({
  ...(state ? { state } : {}),
  data: {
    title: `Bulk post ${i}`,
    summary: `Summary of bulk post ${i}. `.repeat(4),
    body: `## Heading ${i}\n\n${'Some **markdown** body text. '.repeat(10)}`,
    views: i,
    featured: i % 2 === 0,
    'published-on': `2026-${String((i % 12) + 1).padStart(2, '0')}-15`,
    accent: '#3366ff',
    author,
  },
});

export async function runBulkBench(log: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<BulkBenchRow[]> {
  const bench = await openBenchDatabase('cms_bench_bulk');
  const port = await freePort();
  log(`database ${redactUrl(bench.url)}${bench.owned ? ' (created for this run)' : ''}; ${CLIENTS} clients × ${DURATION} s per run`);
  const env = {
    DATABASE_URL: bench.url,
    REDIS_URL: process.env.REDIS_URL ?? '',
    PORT: String(port),
    HOST: '127.0.0.1',
    WORKER_IN_PROCESS: 'false',
    MIGRATE_ON_START: 'false',
    SEED_DEMO: 'false',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '10000000',
  };
  const server = CPU_PROF_DIR
    ? spawnChild('server', process.execPath, ['--cpu-prof', '--cpu-prof-dir', CPU_PROF_DIR, '--import', 'tsx', 'src/main.ts'], env)
    : spawnTsx('server', 'src/main.ts', env);
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitHealthy(server, `${base}/healthz`);
    const project = await createBenchProject(bench.db, 'bench-bulk');
    const api: Api = { base, headers: project.headers };
    const authors = await createModel(api);
    await createPeersModel(api);
    const body = (state?: string) => JSON.stringify({ items: Array.from({ length: ITEMS }, (_, i) => item(i, authors[i % authors.length], state)) });
    const loadFixed = (state: string | undefined, durationSec: number) =>
      runLoad({
        url: `${base}/api/bulk/posts/entries`,
        method: 'POST',
        headers: { ...api.headers, 'content-type': 'application/json' },
        body: body(state),
        connections: CLIENTS,
        durationSec,
        timeoutSec: 30,
      });

    const rows: BulkBenchRow[] = [];
    const scenarios = [['drafts', undefined], ['state: published', 'published'], ['peers model (slug unique), published', 'unique']] as const;
    for (const [name, state] of scenarios.filter(([, st]) => !ONLY || ONLY === (st ?? 'drafts'))) {
      const load = (st: typeof state, durationSec: number) =>
        st === 'unique' ? uniqueLoad(base, api.headers, authors, CLIENTS, durationSec) : loadFixed(st, durationSec);
      await load(state, 2); // warm-up: JIT, connection pool, plan caches
      // A fresh database has no planner statistics until autovacuum's first pass (a minute or more in):
      // without them, `uuid IN (...)` lookups scan the whole project. Measure the steady state.
      await bench.db.query('ANALYZE entries, entry_versions, outbox_events');
      const cpuBefore = treeCpuMs(server.proc.pid!);
      const pgBefore = PG_PID ? treeCpuMs(PG_PID) : 0;
      const dbBefore = await backendCpu(bench);
      const result = await load(state, DURATION);
      const ok = Math.max(result.total - result.errors, 1);
      const serverCpuMsPerRequest = (treeCpuMs(server.proc.pid!) - cpuBefore) / ok;
      const pgCpuMsPerRequest = PG_PID ? (treeCpuMs(PG_PID) - pgBefore) / ok : undefined;
      const dbAfter = dbBefore && (await backendCpu(bench));
      // A backend that started during the run counts from zero; one that ended is lost (the pool keeps them).
      const dbCpuMsPerRequest = dbAfter ? [...dbAfter].reduce((sum, [pid, t]) => sum + t - (dbBefore.get(pid) ?? 0), 0) / ok : undefined;
      const entriesPerSec = result.rps * ITEMS;
      const pass = result.errors === 0 && result.p50 < 60 && entriesPerSec > 2000;
      rows.push({ name: state === 'unique' ? `bulk create ${ITEMS}, ${name}` : `bulk create ${ITEMS} × 8 fields, ${name}`, result, entriesPerSec, serverCpuMsPerRequest, dbCpuMsPerRequest, pgCpuMsPerRequest, pass });
    }
    const entries = await bench.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM entries`);
    log(`${int(Number(entries[0].n))} entries in the table at the end`);
    return rows;
  } finally {
    await server.stop();
    await bench.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await runBulkBench();
  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(`\n${pad('scenario', 46)}${pad('p50 ms', 9)}${pad('p95 ms', 9)}${pad('p99 ms', 9)}${pad('req/s', 8)}${pad('entries/s', 11)}${pad('cpu ms/req', 12)}${pad('db cpu ms/req', 15)}${pad('errors', 8)}target`);
  for (const r of rows) {
    const x = r.result;
    console.log(
      `${pad(r.name, 46)}${pad(ms(x.p50), 9)}${pad(ms(x.p95), 9)}${pad(ms(x.p99), 9)}${pad(x.rps.toFixed(1), 8)}${pad(int(r.entriesPerSec), 11)}${pad(ms(r.serverCpuMsPerRequest), 12)}${pad(r.dbCpuMsPerRequest === undefined ? '' : ms(r.dbCpuMsPerRequest), 15)}${pad(String(x.errors), 8)}${r.pass ? 'PASS' : 'FAIL'} (p50 < 60 ms, > 2,000 entries/s)`,
    );
    if (x.errors) console.log(`  non-2xx: ${JSON.stringify(x.statuses)}`);
    if (r.pgCpuMsPerRequest !== undefined) console.log(`  PostgreSQL (pid ${PG_PID} tree): ${ms(r.pgCpuMsPerRequest)} cpu ms/req`);
  }
  process.exitCode = rows.every((r) => r.pass) ? 0 : 1;
}
