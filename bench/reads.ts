/**
 * The read scenarios of `npm run bench` alone (REST get/list, GraphQL get/list), for iterating on the
 * read path: `npx tsx bench/reads.ts [--only=rest-get,rest-list,gql-get,gql-list,rest-filtered,gql-issue] [--profile=DIR]`.
 * `rest-filtered` and `gql-issue` are the issue-18 cache-off rows (bench/lib/uncached.ts): the
 * filtered list at concurrency 1 and the GraphQL list; run them with
 * `READ_CACHE_MB=0 AUTH_CACHE_MS=0` in the environment to measure the miss path.
 * `--profile` starts the server with `--cpu-prof` and writes its V8 CPU profile to DIR on exit (open it
 * in Chrome DevTools or summarise it with `npx tsx bench/lib/profile-summary.ts DIR/<file>`).
 * Knobs as for bench/main.ts: BENCH_DURATION, BENCH_CONNECTIONS, BENCH_POSTS, BENCH_AUTHORS; BENCH_WARMUP
 * (seconds of load before each scenario's measured run, default 5: bench/lib/load.ts).
 */
import { randomBytes } from 'node:crypto';
import { createBenchProject, openBenchDatabase } from './lib/database.ts';
import { benchServerEnv, freePort, spawnChild, spawnTsx, treeCpuMs, waitHealthy } from './lib/processes.ts';
import { createContentModel, seedPosts, type Api } from './lib/seed.ts';
import { checkGraphql, graphqlGet, graphqlList, graphqlQueries, restGet, restList, type Knobs } from './lib/http-scenarios.ts';
import { cleanRedis } from './lib/redis.ts';
import { runLoad, warmupSec } from './lib/load.ts';
import { filteredList, UNCACHED_GQL_LIST } from './lib/uncached.ts';
import type { LoadResult } from './lib/load.ts';
import { int, ms } from './lib/stats.ts';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const only = new Set((args.get('only') ?? 'rest-get,rest-list,gql-get,gql-list').split(','));
const profileDir = args.get('profile');
const knobs: Knobs = { durationSec: Number(process.env.BENCH_DURATION ?? 10), connections: Number(process.env.BENCH_CONNECTIONS ?? 32) };
const warm: Knobs = { durationSec: warmupSec(), connections: knobs.connections };

const bench = await openBenchDatabase();
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `cms_bench_${randomBytes(4).toString('hex')}`;
const port = await freePort();
const env = benchServerEnv({ databaseUrl: bench.url, redisUrl, prefix, port });
const server = profileDir
  ? spawnChild('server', process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--import', 'tsx', 'src/main.ts'], env)
  : spawnTsx('server', 'src/main.ts', env);
const print = (name: string, r: LoadResult, cpuMs: number) =>
  console.log(
    `${name.padEnd(10)} ${int(r.rps).padStart(7)} req/s  p50 ${ms(r.p50)}  p95 ${ms(r.p95)}  p99 ${ms(r.p99)}  errors ${r.errors}  server CPU ${((cpuMs * 1000) / Math.max(r.total, 1)).toFixed(1)} µs/req`,
  );
try {
  const api: Api = { base: `http://127.0.0.1:${port}`, headers: {} };
  await waitHealthy(server, `${api.base}/healthz`);
  api.headers = (await createBenchProject(bench.db, 'bench')).headers;
  await createContentModel(api);
  const seeded = await seedPosts(api, Number(process.env.BENCH_POSTS ?? 2000), Number(process.env.BENCH_AUTHORS ?? 200));
  // Statistics of the seeded tables, as bench/lib/uncached.ts takes them (the filtered list's plan depends on them).
  await bench.db.query('ANALYZE entries, entry_versions, collections, fields');
  const gq = await graphqlQueries(api);
  await checkGraphql(api, gq.get, { uuid: seeded.posts[0] });
  await checkGraphql(api, gq.list);
  const scenarios: Array<[string, (k: Knobs) => Promise<LoadResult>]> = [
    ['rest-get', (k) => restGet(api, seeded.posts, k)],
    ['rest-list', (k) => restList(api, k)],
    ['gql-get', (k) => graphqlGet(api, gq, seeded.posts, k)],
    ['gql-list', (k) => graphqlList(api, gq, k)],
    ['rest-filtered', (k) => runLoad({ url: `${api.base}${filteredList(seeded.posts.length)}`, headers: api.headers, ...k, connections: 1 })],
    ['gql-issue', (k) => graphqlList(api, { ...gq, list: UNCACHED_GQL_LIST }, k)],
  ];
  for (const [name, run] of scenarios) {
    if (!only.has(name)) continue;
    await run(warm);
    // BENCH_ROUNDS > 1 repeats the measurement on the same server: on a shared machine the best
    // round (least CPU per request) is the steadiest figure to compare builds by.
    for (let round = 0; round < Number(process.env.BENCH_ROUNDS ?? 1); round++) {
      const cpuBefore = treeCpuMs(server.proc.pid!);
      const result = await run(knobs);
      print(name, result, treeCpuMs(server.proc.pid!) - cpuBefore);
    }
  }
} finally {
  await server.stop('SIGINT');
  await cleanRedis(redisUrl, prefix).catch(() => {});
  await bench.close();
}
