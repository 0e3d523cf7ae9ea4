/**
 * `npm run soak -- --minutes N [--rate R] [--peak-fraction 0.7] [--crash]`: mixed traffic (reads 80 %,
 * writes 15 %, bulk 5 %) against one server (+ its webhook worker) with a webhook to a local receiver,
 * then a report: errors, p99 and RSS per 30 s window, outbox depth, and proof that every event was
 * delivered exactly once by `delivery_id`. Without --rate it first measures the mix's peak for 15 s
 * and runs at --peak-fraction of it. --crash SIGKILLs the worker halfway and restarts it: duplicates
 * are then allowed (at-least-once), missing events still are not.
 *
 * Same environment as bench/main.ts (DATABASE_URL / REDIS_URL or local defaults, a fresh database).
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { createBenchProject, openBenchDatabase, redactUrl, type BenchDatabase } from './lib/database.ts';
import { benchServerEnv, freePort, spawnTsx, waitHealthy, type Child } from './lib/processes.ts';
import { createContentModel, must, seedPosts, type Api } from './lib/seed.ts';
import { WebhookReceiver } from './lib/receiver.ts';
import { cleanRedis } from './lib/redis.ts';
import { GENERIC_LIST, TYPED_LIST, mixRequest, send, type Sent } from './lib/mix.ts';
import { graphqlQueries } from './lib/http-scenarios.ts';
import { int, mb, ms, percentiles, sleep } from './lib/stats.ts';

interface Args {
  minutes: number;
  rate?: number;
  peakFraction: number;
  crash: boolean;
  windowSec: number;
}

function parseArgs(argv: string[]): Args {
  const get = (name: string): string | undefined => {
    const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
    if (i < 0) return undefined;
    return argv[i].includes('=') ? argv[i].split('=')[1] : argv[i + 1];
  };
  return {
    minutes: Number(get('minutes') ?? 10),
    rate: get('rate') ? Number(get('rate')) : undefined,
    peakFraction: Number(get('peak-fraction') ?? 0.7),
    crash: argv.includes('--crash'),
    windowSec: Number(get('window') ?? 30),
  };
}

const log = (line: string) => process.stdout.write(`${line}\n`);

interface Window {
  index: number;
  requests: number;
  errors: number;
  p99: number;
  serverRss: number;
  workerRss: number;
  outboxDepth: number;
  pendingDeliveries: number;
}

/** Closed loop with `inFlight` workers for `sec` seconds: the mix's peak throughput. */
async function measurePeak(api: Api, posts: string[], authors: string[], gql: string, sec: number, inFlight: number): Promise<number> {
  let n = 0;
  let ok = 0;
  const end = performance.now() + sec * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        const r = await send(api, mixRequest(n++, posts, authors, gql));
        if (r.status >= 200 && r.status < 300) ok++;
      }
    }),
  );
  return ok / sec;
}

/**
 * Open loop at `rate` req/s (requests start on schedule whether or not earlier ones finished, up to
 * `maxInFlight`, beyond which the slot is counted as an error: the server fell behind).
 */
async function drive(api: Api, opts: { rate: number; sec: number; posts: string[]; authors: string[]; gql: string; maxInFlight: number; onSent: (s: Sent) => void; startAt: number }): Promise<void> {
  const intervalMs = 1000 / opts.rate;
  const start = performance.now();
  let n = opts.startAt;
  let inFlight = 0;
  const pending = new Set<Promise<void>>();
  while (performance.now() - start < opts.sec * 1000) {
    const due = Math.floor((performance.now() - start) / intervalMs);
    while (n - opts.startAt <= due) {
      const req = mixRequest(n++, opts.posts, opts.authors, opts.gql);
      if (inFlight >= opts.maxInFlight) {
        opts.onSent({ kind: req.kind, status: -1, ms: 0, at: Date.now() });
        continue;
      }
      inFlight++;
      const p: Promise<void> = send(api, req).then((s) => {
        inFlight--;
        opts.onSent(s);
        pending.delete(p);
      });
      pending.add(p);
    }
    await sleep(Math.max(1, intervalMs / 2));
  }
  await Promise.all(pending);
}

async function counts(bench: BenchDatabase, webhookUuid: string): Promise<{ outbox: number; pending: number; total: number }> {
  const [o] = await bench.db.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox_events WHERE dispatched_at IS NULL');
  const [d] = await bench.db.query<{ pending: number; total: number }>(
    `SELECT count(*) FILTER (WHERE d.status NOT IN ('delivered', 'failed'))::int AS pending, count(*)::int AS total
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.uuid = $1`,
    [webhookUuid],
  );
  return { outbox: o.n, pending: d.pending, total: d.total };
}

export async function runSoak(args: Args): Promise<{ pass: boolean }> {
  const bench = await openBenchDatabase('cms_soak');
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `cms_soak_${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  const env = benchServerEnv({ databaseUrl: bench.url, redisUrl, prefix, port });
  log(`# soak: ${args.minutes} min${args.crash ? ', worker SIGKILLed halfway' : ''}; database ${redactUrl(bench.url)}; redis prefix ${prefix}`);
  const server = spawnTsx('server', 'src/main.ts', env);
  let worker: Child = spawnTsx('worker', 'src/worker/main.ts', env);
  const receiver = new WebhookReceiver();
  const windows: Window[] = [];
  const errorsByStatus: Record<string, number> = {};
  let pass = false;
  try {
    const api: Api = { base: `http://127.0.0.1:${port}`, headers: {} };
    await waitHealthy(server, `${api.base}/healthz`);
    api.headers = (await createBenchProject(bench.db, 'soak')).headers;
    await createContentModel(api);
    const seeded = await seedPosts(api, 500, 50);
    const gql = (await graphqlQueries(api)).typed ? TYPED_LIST : GENERIC_LIST;
    const hookUrl = await receiver.start();
    const hook = await must<{ uuid: string }>(api, 'POST', '/api/webhooks', { name: 'soak', url: hookUrl, events: ['content.created', 'content.updated'], sources: ['api', 'cms'], payload: true });
    await sleep(1000);

    const rate = args.rate ?? Math.max(10, Math.round(args.peakFraction * (await measurePeak(api, seeded.posts, seeded.authors, gql, 15, 32))));
    log(`rate: ${rate} req/s${args.rate ? '' : ` (${args.peakFraction} × peak measured over 15 s)`}`);

    let current: Sent[] = [];
    let windowIndex = 0;
    const flush = async () => {
      const batch = current;
      current = [];
      const c = await counts(bench, hook.uuid);
      const errors = batch.filter((s) => s.status < 200 || s.status >= 300);
      for (const e of errors) errorsByStatus[e.status] = (errorsByStatus[e.status] ?? 0) + 1;
      const w: Window = {
        index: windowIndex++,
        requests: batch.length,
        errors: errors.length,
        p99: percentiles(batch.filter((s) => s.status > 0).map((s) => s.ms)).p99,
        serverRss: server.rss(),
        workerRss: worker.rss(),
        outboxDepth: c.outbox,
        pendingDeliveries: c.pending,
      };
      windows.push(w);
      log(`window ${w.index}: ${w.requests} requests, ${w.errors} errors, p99 ${ms(w.p99)} ms, server ${mb(w.serverRss)}, worker ${mb(w.workerRss)}, outbox ${w.outboxDepth}, pending deliveries ${w.pendingDeliveries}`);
    };
    const timer = setInterval(() => void flush(), args.windowSec * 1000);
    // Every production PostgreSQL runs autovacuum; a server without it (this development machine's
    // cluster has autovacuum = off) never refreshes statistics or visibility maps while the soak grows
    // the tables by ~100 rows/s, and the soak would measure that instead of the service. Stand in for
    // it, and say so.
    const [{ autovacuum }] = await bench.db.query<{ autovacuum: string }>(`SELECT current_setting('autovacuum') AS autovacuum`);
    let vacuuming: ReturnType<typeof setInterval> | undefined;
    if (autovacuum !== 'on') {
      log('server has autovacuum off: the soak runs VACUUM (ANALYZE) on its database every 30 s in its place');
      let busy = false;
      vacuuming = setInterval(() => {
        if (busy) return;
        busy = true;
        void bench.db
          .runScript('VACUUM (ANALYZE) entries, entry_versions, outbox_events, webhook_deliveries, webhook_logs, content_generations')
          .catch((err: unknown) => log(`vacuum failed: ${(err as Error).message}`))
          .finally(() => (busy = false));
      }, 30_000);
    }
    const totalSec = args.minutes * 60;
    let crashed = false;
    try {
      if (args.crash) {
        await drive(api, { rate, sec: totalSec / 2, posts: seeded.posts, authors: seeded.authors, gql, maxInFlight: 256, onSent: (s) => current.push(s), startAt: 0 });
        log('crash: SIGKILL the worker, start a new one');
        await worker.stop('SIGKILL');
        worker = spawnTsx('worker', 'src/worker/main.ts', env);
        crashed = true;
        await drive(api, { rate, sec: totalSec / 2, posts: seeded.posts, authors: seeded.authors, gql, maxInFlight: 256, onSent: (s) => current.push(s), startAt: 1_000_000 });
      } else {
        await drive(api, { rate, sec: totalSec, posts: seeded.posts, authors: seeded.authors, gql, maxInFlight: 256, onSent: (s) => current.push(s), startAt: 0 });
      }
    } finally {
      clearInterval(timer);
      if (vacuuming) clearInterval(vacuuming);
    }
    if (current.length) await flush();

    // Drain: every delivery row for the webhook must reach the receiver.
    const drainDeadline = Date.now() + 180_000;
    let c = await counts(bench, hook.uuid);
    while ((c.outbox > 0 || c.pending > 0 || receiver.deliveries.size < c.total) && Date.now() < drainDeadline) {
      await sleep(1000);
      c = await counts(bench, hook.uuid);
    }
    const expected = await bench.db.query<{ id: string }>(`SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.uuid = $1`, [hook.uuid]);
    const [events] = await bench.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox_events o JOIN projects p ON p.id = o.project_id WHERE p.uuid = $1 AND o.event IN ('content.created', 'content.updated') AND o.created_at >= (SELECT created_at FROM webhooks WHERE uuid = $2)`,
      [api.headers['project-id'], hook.uuid],
    );
    const expectedIds = new Set(expected.map((r) => r.id));
    const missing = [...expectedIds].filter((id) => !receiver.deliveries.has(id)).length;
    const unexpected = [...receiver.deliveries.keys()].filter((id) => !expectedIds.has(id)).length;
    const undelivered = events.n - expectedIds.size;

    const total = windows.reduce((n, w) => n + w.requests, 0);
    const errors = windows.reduce((n, w) => n + w.errors, 0);
    const steady = windows.filter((w) => w.requests > 0).slice(1, -1);
    const rssFirst = steady[0]?.serverRss ?? windows[0]?.serverRss ?? 0;
    const rssLast = steady.at(-1)?.serverRss ?? windows.at(-1)?.serverRss ?? 0;
    const rssFlat = rssLast <= rssFirst * 1.2;
    const duplicatesOk = receiver.duplicates === 0 || crashed;
    pass = errors === 0 && missing === 0 && undelivered === 0 && rssFlat && duplicatesOk;

    log('');
    log(`| window (${args.windowSec} s) | requests | errors | p99 ms | server RSS | worker RSS | outbox depth | pending deliveries |`);
    log('|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const w of windows) log(`| ${w.index} | ${w.requests} | ${w.errors} | ${ms(w.p99)} | ${mb(w.serverRss)} | ${mb(w.workerRss)} | ${w.outboxDepth} | ${w.pendingDeliveries} |`);
    log('');
    log(`requests: ${int(total)} at ${rate} req/s target; errors: ${errors}${errors ? ` ${JSON.stringify(errorsByStatus)}` : ''}`);
    log(`server RSS: ${mb(rssFirst)} (first steady window) → ${mb(rssLast)} (last): ${rssFlat ? 'flat' : 'GROWING'}`);
    log(`events for the webhook: ${events.n}; delivery rows: ${expectedIds.size}; received distinct: ${receiver.deliveries.size}; missing: ${missing}; duplicates: ${receiver.duplicates}${crashed ? ' (allowed: worker was killed)' : ''}; unknown ids: ${unexpected}; events without a delivery row: ${undelivered}`);
    log(`verdict: ${pass ? 'PASS' : 'MISS'} (0 errors, flat RSS, no event missing${crashed ? '' : ', no duplicate'})`);
  } finally {
    await server.stop();
    await worker.stop();
    await receiver.close();
    await bench.close();
    await cleanRedis(redisUrl, prefix);
  }
  return { pass };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runSoak(parseArgs(process.argv.slice(2))).then(
    (r) => process.exit(r.pass ? 0 : 1),
    (err: unknown) => {
      console.error(err);
      process.exit(2);
    },
  );
}
