/**
 * Scheduled publishes: the delay between a schedule's `at` and the commit of its publish (`ran_at`,
 * the commit's clock inside the transaction), p50 and p99 over 50 schedules spread over a few seconds,
 * with one API server and one `npm run worker` on the bench's database and a private queue prefix.
 * The promise it is measured against: every schedule runs within 5 s of its time.
 *
 * `npx tsx bench/schedules.ts` alone: DATABASE_URL or a fresh database (bench/lib/database.ts),
 * REDIS_URL (default redis://127.0.0.1:6379), BENCH_SCHEDULES (default 50).
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { createBenchProject, openBenchDatabase } from './lib/database.ts';
import { benchServerEnv, freePort, spawnTsx, waitHealthy } from './lib/processes.ts';
import { must, type Api } from './lib/seed.ts';
import { cleanRedis } from './lib/redis.ts';
import { formatTable, formatTargets, type Row, type Target } from './lib/report.ts';
import { ms, percentile, sleep } from './lib/stats.ts';
import type { Database } from '../src/db/client.ts';

export const SCHEDULE_ROWS = { delay: 'scheduled publish: delay from `at` to commit' };

/** How far ahead the first schedule is set, and the spacing of the rest. */
const LEAD_MS = 3000;
const SPACING_MS = 60;

export async function runScheduleBench(opts: { databaseUrl: string; db: Database; redisUrl: string; prefix: string; count: number }): Promise<{ rows: Row[]; targets: Target[] }> {
  const port = await freePort();
  const env = { ...benchServerEnv({ databaseUrl: opts.databaseUrl, redisUrl: opts.redisUrl, prefix: opts.prefix, port }), SCHEDULE_QUEUE_PREFIX: `${opts.prefix}s` };
  const server = spawnTsx('server (schedules)', 'src/main.ts', env);
  const worker = spawnTsx('worker (schedules)', 'src/worker/main.ts', env);
  try {
    const api: Api = { base: `http://127.0.0.1:${port}`, headers: {} };
    await waitHealthy(server, `${api.base}/healthz`);
    api.headers = (await createBenchProject(opts.db, `schedules ${randomBytes(3).toString('hex')}`)).headers;
    await must(api, 'POST', '/api/collections', { name: 'Notes', slug: 'notes', fields: [{ type: 'text', label: 'Title', name: 'title' }] });
    const uuids: string[] = [];
    for (let i = 0; i < opts.count; i++) uuids.push((await must<{ uuid: string }>(api, 'POST', '/api/notes', { data: { title: `note ${i}` } })).uuid);
    // The worker is up once it has a Redis connection; give it the lead time to start as well.
    const start = Date.now() + LEAD_MS;
    const ids: string[] = [];
    for (let i = 0; i < uuids.length; i++) {
      const at = new Date(start + i * SPACING_MS).toISOString();
      ids.push((await must<{ data: { id: string } }>(api, 'POST', `/api/notes/${uuids[i]}/schedule`, { action: 'publish', at })).data.id);
    }
    const until = Date.now() + 60_000 + uuids.length * SPACING_MS;
    let rows: Array<{ status: string; delay: number | null }> = [];
    while (Date.now() < until) {
      rows = await opts.db.query<{ status: string; delay: number | null }>(
        `SELECT status, (extract(epoch FROM ran_at - run_at) * 1000)::float8 AS delay FROM scheduled_actions WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      if (rows.every((r) => r.status !== 'scheduled' && r.status !== 'running')) break;
      await sleep(200);
    }
    const delays = rows.flatMap((r) => (r.status === 'done' && r.delay !== null ? [r.delay] : [])).sort((a, b) => a - b);
    const failed = rows.length - delays.length;
    const p50 = percentile(delays, 50);
    const p99 = percentile(delays, 99);
    return {
      rows: [{ scenario: SCHEDULE_ROWS.delay, p50, p99, errors: failed, note: `${delays.length} of ${ids.length} schedules done, ${SPACING_MS} ms apart; one API server, one worker` }],
      targets: [{ name: 'scheduled publish within 5 s of its time (every one of them)', measured: `p50 ${ms(p50)} ms, p99 ${ms(p99)} ms, max ${ms(delays.at(-1))} ms, ${failed} not done`, pass: failed === 0 && (delays.at(-1) ?? Infinity) < 5000 }],
    };
  } finally {
    await worker.stop();
    await server.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const bench = await openBenchDatabase();
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `cms_bench_${randomBytes(4).toString('hex')}`;
  try {
    const r = await runScheduleBench({ databaseUrl: bench.url, db: bench.db, redisUrl, prefix, count: Number(process.env.BENCH_SCHEDULES ?? 50) });
    console.log(formatTable(r.rows));
    console.log(formatTargets(r.targets));
  } finally {
    await cleanRedis(redisUrl, prefix).catch(() => {});
    await cleanRedis(redisUrl, `${prefix}s`).catch(() => {});
    await bench.close();
  }
}
