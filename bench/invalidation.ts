/**
 * The issue-18 rows of `npm run bench` alone: the cache-off reads and the mixed scenario, with the two
 * ceilings they are measured against (stock Yoga `{ __typename }`, the raw indexed SELECT) taken in
 * the same run. `npx tsx bench/invalidation.ts [--only=uncached,mixed]`; knobs as for bench/main.ts
 * (BENCH_DURATION, BENCH_CONNECTIONS, BENCH_POSTS, BENCH_AUTHORS). `BENCH_SERVER_DIR` runs the
 * servers from another checkout (e.g. a worktree of the commit before a change) with this harness.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { createBenchProject, openBenchDatabase } from './lib/database.ts';
import { benchServerEnv, freePort, spawnTsx, waitHealthy } from './lib/processes.ts';
import { createContentModel, seedPosts, type Api } from './lib/seed.ts';
import { rawSelectCeiling, yogaCeiling } from './ceilings.ts';
import { runUncached } from './lib/uncached.ts';
import { runMixed } from './lib/mixed.ts';
import { cleanRedis } from './lib/redis.ts';
import { formatTable, formatTargets, type Row, type Target } from './lib/report.ts';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const only = new Set((args.get('only') ?? 'uncached,mixed').split(','));
const durationSec = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);

const bench = await openBenchDatabase();
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `cms_bench_${randomBytes(4).toString('hex')}`;
const port = await freePort();
const seeder = spawnTsx('server (seed)', 'src/main.ts', benchServerEnv({ databaseUrl: bench.url, redisUrl, prefix, port }));
const rows: Row[] = [];
const targets: Target[] = [];
console.log(`load average at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
try {
  const api: Api = { base: `http://127.0.0.1:${port}`, headers: {} };
  await waitHealthy(seeder, `${api.base}/healthz`);
  api.headers = (await createBenchProject(bench.db, 'bench')).headers;
  await createContentModel(api);
  const seeded = await seedPosts(api, Number(process.env.BENCH_POSTS ?? 2000), Number(process.env.BENCH_AUTHORS ?? 200));
  await seeder.stop();
  const common = { databaseUrl: bench.url, redisUrl, prefix, headers: api.headers, posts: seeded.posts, durationSec, connections };
  if (only.has('uncached')) {
    const yoga = await yogaCeiling({ durationSec, connections });
    const select = await rawSelectCeiling(bench.url, seeded.posts, { inFlight: 16, durationSec });
    rows.push({ scenario: 'ceiling: stock Yoga { __typename }', rate: yoga.rps, p50: yoga.p50, p95: yoga.p95, p99: yoga.p99, errors: yoga.errors });
    rows.push({ scenario: 'ceiling: raw pg SELECT (16 in flight)', rate: select.qps, unit: 'queries/s', p50: select.p50, p95: select.p95, p99: select.p99 });
    const r = await runUncached({ ...common, yogaRps: yoga.rps, selectQps: select.qps });
    rows.push(...r.rows);
    targets.push(...r.targets);
  }
  if (only.has('mixed')) {
    const r = await runMixed({ ...common, perCollection: 100 });
    rows.push(...r.rows);
    targets.push(...r.targets);
  }
  console.log(`\n${formatTable(rows)}\n\n${formatTargets(targets)}\n`);
  console.log(`load average at end ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await seeder.stop();
  await cleanRedis(redisUrl, prefix).catch(() => {});
  await bench.close();
}
