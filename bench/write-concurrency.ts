/**
 * Write concurrency: publishing writes to
 * DISTINCT entries of one project through the real HTTP API, at 1 client and at 8 clients, beside the
 * same-run ceiling of the same number of plain `UPDATE …; COMMIT` transactions on distinct rows
 * through `pg` (bench/lib/write-ceiling.ts).
 *
 * A write is the one-request publish the REST API offers: `PATCH /api/bulk/posts/entries` with one
 * item `{ uuid, data: { title }, state: "published" }` (a PATCH of the entry only saves its draft;
 * publishing would be a second request to `…/publish`). `BENCH_WRITE_REQUEST=publish` sends
 * `POST /api/posts/{uuid}/publish` instead (a new version of the unchanged draft). Every client is a
 * closed loop over entries no other client names, so whatever the clients wait for is each other's
 * transactions, not an entry's row lock.
 *
 * Each row's note gives what explains the figure: the server's and PostgreSQL's CPU per write, and the
 * mean number of this database's backends waiting on a lock (sampled from pg_stat_activity), which is
 * where writers queueing behind one row show. Two more rows separate the database's share: draft saves
 * of the same entries in plain SQL (the content triggers without the server), and the plain ceiling
 * with a NOTIFY in every commit.
 *
 * Alone: `npx tsx bench/write-concurrency.ts` (its own database, unless DATABASE_URL; BENCH_POSTS,
 * default 400). Knobs (also under `npm run bench`): BENCH_WRITE_DURATION (s per step, default 8),
 * BENCH_WRITE_CLIENTS (default `1,8`; the targets compare the smallest and the largest),
 * BENCH_WRITE_REQUEST (`bulk` or `publish`), BENCH_WARMUP.
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { createBenchProject, openBenchDatabase } from './lib/database.ts';
import { benchServerEnv, freePort, spawnTsx, treeCpuMs, waitHealthy, type Child } from './lib/processes.ts';
import { backendCpu, backendCpuDelta } from './lib/pg-cpu.ts';
import { warmupSec } from './lib/load.ts';
import { createContentModel, seedPosts, type Api } from './lib/seed.ts';
import { cleanRedis } from './lib/redis.ts';
import { formatTable, formatTargets, type Row, type Target } from './lib/report.ts';
import { closedLoop, dropCeilingTable, lockSampler, prepareCeilingTable, updateCeiling, type ClosedLoopResult } from './lib/write-ceiling.ts';
import { int } from './lib/stats.ts';

const plural = (c: number) => `${c} client${c === 1 ? '' : 's'}`;

export const writeRowNames = {
  publish: (c: number) => `publish distinct entries of one project, ${plural(c)}`,
  ceiling: (c: number) => `ceiling: pg UPDATE; COMMIT on distinct rows, ${plural(c)}`,
  notify: (c: number) => `ceiling: pg UPDATE + NOTIFY; COMMIT on distinct rows, ${plural(c)}`,
  entries: (c: number) => `pg UPDATE entries (content triggers fire); COMMIT, ${plural(c)}`,
};

export const writeClients = (): number[] =>
  (process.env.BENCH_WRITE_CLIENTS ?? '1,8')
    .split(',')
    .map(Number)
    .filter((c) => c > 0)
    .sort((a, b) => a - b);

/** The rows printed with the default clients, in order (bench/main.ts lists every row). */
export const WRITE_CONCURRENCY_ROWS = (() => {
  const clients = writeClients();
  return [...clients.map(writeRowNames.publish), ...clients.map(writeRowNames.entries), ...clients.map(writeRowNames.ceiling), writeRowNames.notify(clients[clients.length - 1])];
})();

export interface WriteConcurrencyOptions {
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  headers: Record<string, string>;
  /** Published posts of the project (the bench content model), at least one per client. */
  posts: string[];
  durationSec: number;
  log?: (line: string) => void;
}

interface Step {
  clients: number;
  result: ClosedLoopResult;
  serverUs: number;
  dbUs: number | null;
  /** The load generator's own CPU per write (this process: fetch, JSON, the samplers): it runs on the same cores. */
  clientUs: number;
  /** Mean backends of this database waiting on a heavyweight lock, and the wait events seen. */
  lockWaiters: number;
  waits: string;
}

type Write = (uuid: string, title: string) => Promise<void>;

/** The entries' row ids of `uuids`, in the same order. */
async function postIds(databaseUrl: string, uuids: string[]): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: number }>('SELECT e.id FROM unnest($1::uuid[]) WITH ORDINALITY u(uuid, n) JOIN entries e ON e.uuid = u.uuid ORDER BY u.n', [uuids]);
    return rows.map((r) => r.id);
  } finally {
    await client.end();
  }
}

function writer(base: string, headers: Record<string, string>): Write {
  const h = { ...headers, 'content-type': 'application/json', accept: 'application/json' };
  const kind = process.env.BENCH_WRITE_REQUEST ?? 'bulk';
  return async (uuid, title) => {
    const res =
      kind === 'publish'
        ? await fetch(`${base}/api/posts/${uuid}/publish`, { method: 'POST', headers: { ...headers, accept: 'application/json' } })
        : await fetch(`${base}/api/bulk/posts/entries`, { method: 'PATCH', headers: h, body: JSON.stringify({ items: [{ uuid, data: { title }, state: 'published' }] }) });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`status ${res.status}`);
  };
}

/** `clients` closed loops publishing; client k writes posts[k], posts[k + clients], … only. */
async function publishStep(o: WriteConcurrencyOptions, server: Child, write: Write, clients: number, durationSec: number): Promise<Step> {
  const perClient = Math.max(1, Math.floor(o.posts.length / clients));
  const pgCpu = await backendCpu(o.databaseUrl);
  const locks = await lockSampler(o.databaseUrl);
  try {
    const cpu0 = treeCpuMs(server.proc.pid!);
    const own0 = process.cpuUsage();
    const db0 = await pgCpu.read();
    const result = await closedLoop(clients, durationSec, (client, n) => write(o.posts[client + clients * (n % perClient)], `Post ${client}-${n} ${Date.now()}`));
    const db = backendCpuDelta(db0, await pgCpu.read());
    const serverUs = ((treeCpuMs(server.proc.pid!) - cpu0) * 1000) / Math.max(result.done, 1);
    const own = process.cpuUsage(own0);
    const clientUs = (own.user + own.system) / Math.max(result.done, 1);
    const waited = await locks.stop();
    return { clients, result, serverUs, clientUs, dbUs: db === null ? null : (db * 1000) / Math.max(result.done, 1), lockWaiters: waited.mean, waits: waited.waits };
  } finally {
    await locks.stop().catch(() => {});
    await pgCpu.close();
  }
}

/**
 * Writes/s the machine's cores allow at the step's measured CPU per write (null: PostgreSQL not local):
 * server + PostgreSQL + the load generator, since all three take turns on the same cores.
 */
const boundOf = (s: Step): number | null => (s.dbUs === null ? null : (cpus().length * 1e6) / (s.serverUs + s.dbUs + s.clientUs));

const rowOf = (scenario: string, r: ClosedLoopResult, unit: string, extra: Partial<Row> = {}): Row => ({
  scenario,
  rate: r.rate,
  unit,
  p50: r.p50,
  p95: r.p95,
  p99: r.p99,
  errors: r.errors,
  ...extra,
});

export async function runWriteConcurrency(o: WriteConcurrencyOptions): Promise<{ rows: Row[]; targets: Target[] }> {
  const log = o.log ?? (() => {});
  const clients = writeClients();
  if (o.posts.length < clients[clients.length - 1]) throw new Error(`write concurrency needs at least ${clients[clients.length - 1]} posts, got ${o.posts.length}`);
  const port = await freePort();
  const server = spawnTsx('server (writes)', 'src/main.ts', benchServerEnv({ databaseUrl: o.databaseUrl, redisUrl: o.redisUrl, prefix: o.prefix, port }));
  const steps: Step[] = [];
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitHealthy(server, `${base}/healthz`);
    // Autovacuum may be off (this machine's cluster): fresh rows would have no planner statistics.
    const sql = new pg.Client({ connectionString: o.databaseUrl });
    await sql.connect();
    await sql.query('ANALYZE entries, entry_versions, outbox_events, content_changes, content_generations, collection_generations').finally(() => sql.end());
    const write = writer(base, o.headers);
    // Warm-up at the largest client count, so the server's write path is optimised before either step.
    await publishStep(o, server, write, clients[clients.length - 1], Math.min(warmupSec(), o.durationSec));
    for (const c of clients) {
      const step = await publishStep(o, server, write, c, o.durationSec);
      steps.push(step);
      log(`publish, ${plural(c)}: ${step.result.rate.toFixed(1)}/s, p50 ${step.result.p50.toFixed(1)} ms, p99 ${step.result.p99.toFixed(1)} ms, lock waiters ${step.lockWaiters.toFixed(2)}`);
    }
  } finally {
    await server.stop();
  }

  // The ceilings right after, with the server stopped so that it takes no CPU from them.
  const max = clients[clients.length - 1];
  const ceilingRows = Math.max(o.posts.length, 25 * max);
  const tableIds = Array.from({ length: ceilingRows }, (_, i) => i + 1);
  const entryIds = await postIds(o.databaseUrl, o.posts);
  await prepareCeilingTable(o.databaseUrl, ceilingRows);
  const ceilings = new Map<number, ClosedLoopResult>();
  const entries = new Map<number, ClosedLoopResult>();
  const entryWaits = new Map<number, { mean: number; waits: string }>();
  let notify: ClosedLoopResult;
  try {
    for (const c of clients) ceilings.set(c, await updateCeiling(o.databaseUrl, { clients: c, ids: tableIds, durationSec: o.durationSec, statement: 'plain' }));
    notify = await updateCeiling(o.databaseUrl, { clients: max, ids: tableIds, durationSec: o.durationSec, statement: 'notify' });
    for (const c of clients) {
      const locks = await lockSampler(o.databaseUrl);
      entries.set(c, await updateCeiling(o.databaseUrl, { clients: c, ids: entryIds, durationSec: o.durationSec, statement: 'entries' }));
      entryWaits.set(c, await locks.stop());
    }
  } finally {
    await dropCeilingTable(o.databaseUrl);
  }

  const cpuBound = (s: Step) => (s.dbUs === null ? '' : `; ${cpus().length} cores allow ${int(boundOf(s)!)} writes/s at this CPU cost`);
  const cpu = (s: Step) =>
    `server CPU ${int(s.serverUs)} µs/write${s.dbUs === null ? '' : `, PostgreSQL ${int(s.dbUs)} µs/write`}, load generator ${int(s.clientUs)} µs/write${cpuBound(s)}`;
  const request = process.env.BENCH_WRITE_REQUEST === 'publish' ? 'POST /api/posts/{uuid}/publish' : 'PATCH /api/bulk/posts/entries, 1 item, state published';
  const rows: Row[] = [
    ...steps.map((s) =>
      rowOf(writeRowNames.publish(s.clients), s.result, 'writes/s', {
        ceiling: `${(s.result.rate / ceilings.get(s.clients)!.rate).toFixed(3)} × pg UPDATE; COMMIT`,
        note: `${request}; ${cpu(s)}; backends waiting on a lock: ${s.lockWaiters.toFixed(2)} (${s.waits})`,
      }),
    ),
    ...clients.map((c) =>
      rowOf(writeRowNames.entries(c), entries.get(c)!, 'commits/s', {
        ceiling: `${(entries.get(c)!.rate / ceilings.get(c)!.rate).toFixed(3)} × pg UPDATE; COMMIT`,
        note: `draft save of distinct posts in plain SQL, autocommit: the deferred generation triggers (inserts into the content change log), without the server; backends waiting on a lock: ${entryWaits.get(c)!.mean.toFixed(2)} (${entryWaits.get(c)!.waits})`,
      }),
    ),
    ...clients.map((c) => rowOf(writeRowNames.ceiling(c), ceilings.get(c)!, 'commits/s', { note: `autocommit UPDATE of one row of a trigger-free table, ${int(ceilingRows)} rows` })),
    rowOf(writeRowNames.notify(max), notify, 'commits/s', {
      ceiling: `${(notify.rate / ceilings.get(max)!.rate).toFixed(3)} × pg UPDATE; COMMIT`,
      note: 'as above plus pg_notify in the same statement: what NOTIFY in every write commit allows',
    }),
  ];
  const lo = steps[0];
  const hi = steps[steps.length - 1];
  const hiCeiling = ceilings.get(hi.clients)!;
  const scale = hi.result.rate / Math.max(lo.result.rate, 0.001);
  const share = hi.result.rate / Math.max(hiCeiling.rate, 0.001);
  const clean = steps.every((s) => s.result.errors === 0);
  const targets: Target[] = [
    {
      name: `publishes of distinct entries of one project: ${plural(hi.clients)} ≥ 3× ${plural(lo.clients)}`,
      measured: `${hi.result.rate.toFixed(1)} writes/s (p50 ${hi.result.p50.toFixed(1)} ms) vs ${lo.result.rate.toFixed(1)} writes/s (p50 ${lo.result.p50.toFixed(1)} ms) = ${scale.toFixed(2)}×`,
      pass: clean && scale >= 3,
    },
    {
      name: `publishes of distinct entries at ${plural(hi.clients)} ≥ 50 % of pg UPDATE; COMMIT at ${plural(hi.clients)}`,
      measured: `${hi.result.rate.toFixed(1)} writes/s vs ${int(hiCeiling.rate)} commits/s = ${(share * 100).toFixed(1)} %`,
      pass: clean && share >= 0.5,
    },
  ];
  // Whether the largest step used the machine: its rate against what the cores allow at the CPU each
  // write cost in that same step. A shortfall is waiting (locks, round trips, a serial stage), not work.
  const bound = boundOf(hi);
  if (bound !== null) {
    targets.push({
      name: `publishes of distinct entries at ${plural(hi.clients)} ≥ 85 % of the same-run CPU bound (${cpus().length} cores ÷ server + PostgreSQL + load generator CPU per write)`,
      measured: `${hi.result.rate.toFixed(1)} writes/s vs ${int(bound)} writes/s (server ${int(hi.serverUs)} µs + PostgreSQL ${int(hi.dbUs!)} µs + load generator ${int(hi.clientUs)} µs per write) = ${((hi.result.rate / bound) * 100).toFixed(1)} %`,
      pass: clean && hi.result.rate >= 0.85 * bound,
    });
  }
  return { rows, targets };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const bench = await openBenchDatabase();
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `cms_bench_${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  const seeder = spawnTsx('server (seed)', 'src/main.ts', benchServerEnv({ databaseUrl: bench.url, redisUrl, prefix, port }));
  let code = 0;
  try {
    log(`load average at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const api: Api = { base: `http://127.0.0.1:${port}`, headers: {} };
    await waitHealthy(seeder, `${api.base}/healthz`);
    api.headers = (await createBenchProject(bench.db, 'bench')).headers;
    await createContentModel(api);
    const seeded = await seedPosts(api, Number(process.env.BENCH_POSTS ?? 400), Number(process.env.BENCH_AUTHORS ?? 20));
    await seeder.stop();
    const r = await runWriteConcurrency({ databaseUrl: bench.url, redisUrl, prefix, headers: api.headers, posts: seeded.posts, durationSec: Number(process.env.BENCH_WRITE_DURATION ?? 8), log });
    log(`\n${formatTable(r.rows)}\n\n${formatTargets(r.targets)}\n`);
    log(`load average at end ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } catch (err) {
    console.error(err);
    code = 1;
  } finally {
    await seeder.stop();
    await cleanRedis(redisUrl, prefix).catch(() => {});
    await bench.close();
  }
  process.exit(code);
}
