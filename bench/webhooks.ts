/**
 * Webhook delivery benchmark (`npx tsx bench/webhooks.ts`):
 *  1. throughput — N outbox events waiting, one `npm run worker` process (BullMQ, default concurrency)
 *     dispatches, signs, POSTs to a local receiver and writes every log row; deliveries/s from the
 *     first arrival until the database shows all N delivered;
 *  2. latency — events committed at a steady rate (default 100/s), each in its own transaction, while
 *     the same worker runs; commit → arrival p50/p99.
 *  3. recovery — a backlog of due deliveries in no queue (what a Redis outage leaves), then fresh
 *     events at the same rate while the worker drains it: fresh commit → arrival p50/p99, drain rate.
 * Targets (issue #7): > 1,000 deliveries/s per worker, p99 < 250 ms at 100 events/s; while a
 * backlog drains, fresh events' p50 < 1 s.
 *
 * Knobs (env): DATABASE_URL (else a fresh database, dropped afterwards), REDIS_URL (default
 * redis://127.0.0.1:6379; a unique queue prefix is used and removed), BENCH_WEBHOOK_EVENTS (20000),
 * BENCH_WEBHOOK_LATENCY_EVENTS (2000), BENCH_WEBHOOK_RATE (100), BENCH_WEBHOOK_BACKLOG (20000; 0 skips 3), WEBHOOK_CONCURRENCY (worker's).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { createServices } from '../src/services.ts';
import { systemCtx } from '../src/context.ts';
import { emitContentEvent } from '../src/events/outbox.ts';
import { passwordNamesSql } from '../src/entries/store/snapshot.ts';
import { createBenchProject, openBenchDatabase } from './lib/database.ts';
import { spawnTsx } from './lib/processes.ts';
import { WebhookReceiver, nowMs } from './lib/receiver.ts';
import { cleanRedis } from './lib/redis.ts';
import { percentiles, sleep } from './lib/stats.ts';

export interface WebhookBenchResult {
  /** Same machine, same moment: a bare BullMQ worker process doing one 1 KB POST per job, nothing else. */
  ceiling: { jobs: number; perSec: number };
  throughput: { events: number; seconds: number; deliveriesPerSec: number; receiverPerSec: number; logRows: number; duplicates: number };
  latency: { rate: number; events: number; delivered: number; p50: number; p95: number; p99: number; max: number };
  /**
   * After a simulated Redis outage: `backlog` deliveries due in PostgreSQL that no queue holds (what
   * the dispatcher leaves while Redis is down), then fresh events committed at `rate`/s while the
   * worker drains it; commit → arrival of the fresh ones, and how fast the backlog went.
   */
  recovery?: { backlog: number; drained: number; drainSeconds: number; drainPerSec: number; rate: number; events: number; delivered: number; p50: number; p99: number; max: number };
}

const envInt = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

export async function runWebhookBench(
  opts: { events?: number; latencyEvents?: number; rate?: number; backlog?: number } = {},
  log: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
): Promise<WebhookBenchResult> {
  const events = opts.events ?? envInt('BENCH_WEBHOOK_EVENTS', 20_000);
  const latencyEvents = opts.latencyEvents ?? envInt('BENCH_WEBHOOK_LATENCY_EVENTS', 2000);
  const rate = opts.rate ?? envInt('BENCH_WEBHOOK_RATE', 100);
  const backlog = opts.backlog ?? envInt('BENCH_WEBHOOK_BACKLOG', 20_000);
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `bench-wh-${randomBytes(4).toString('hex')}`;

  const bdb = await openBenchDatabase('cms_bench_wh');
  const receiver = new WebhookReceiver();
  let worker: ReturnType<typeof spawnTsx> | undefined;
  const config = loadConfig({ LOG_LEVEL: 'warn', MIGRATE_ON_START: 'false', WORKER_IN_PROCESS: 'false', SEED_DEMO: 'false' }, { DATABASE_URL: bdb.url });
  const services = await createServices(config, createLogger('warn'), { database: bdb.db });
  try {
    const project = await createBenchProject(bdb.db, 'webhook bench');
    const collection = await bdb.db.prisma.collection.create({ data: { projectId: project.id, slug: 'posts', name: 'Posts' } });
    const url = await receiver.start();
    await bdb.db.prisma.webhook.create({
      data: { projectId: project.id, name: 'bench', url, secret: 'bench-secret', events: ['content.updated'], sources: ['api'], payload: true },
    });
    const ref = { id: collection.id, uuid: collection.uuid, slug: collection.slug };

    const ceiling = await bareQueueCeiling(redisUrl, `${prefix}-ceiling`, url, receiver, Math.min(events, 10_000));
    log(`webhooks: ceiling (bare BullMQ worker, one POST per job) ${Math.round(ceiling.perSec)} jobs/s`);
    receiver.reset();

    // A ~1 KB content_entry per event, like a small post.
    await bdb.db.query(
      `INSERT INTO outbox_events (project_id, event, source, collection_id, entry_uuid, payload)
       SELECT $1, 'content.updated', 'api', $2, u,
              jsonb_build_object('collection', $3::jsonb, 'entry_uuid', u, 'locale', 'en',
                'content_entry', jsonb_build_object('uuid', u, 'locale', 'en', 'state', 'draft',
                  'fields', jsonb_build_object('title', 'Post ' || i, 'body', repeat('lorem ipsum ', 70))))
       FROM (SELECT i, gen_random_uuid() AS u FROM generate_series(1, $4::int) i) s`,
      [project.id, collection.id, JSON.stringify(ref), events],
    );
    log(`webhooks: ${events} events waiting in the outbox; starting one worker process`);

    worker = spawnTsx('webhook worker', 'src/worker/main.ts', {
      DATABASE_URL: bdb.url,
      REDIS_URL: redisUrl,
      WEBHOOK_QUEUE_PREFIX: prefix,
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      MIGRATE_ON_START: 'false',
      SEED_DEMO: 'false',
      LOG_LEVEL: 'warn',
      ...(process.env.BENCH_WORKER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_WORKER_NODE_OPTIONS } : {}),
    });
    const arrived = await receiver.waitFor(events, 300_000);
    if (!arrived) throw new Error(`only ${receiver.count()} of ${events} deliveries arrived:\n${worker.tail()}`);
    const arrivals = [...receiver.deliveries.values()].map((d) => d.at);
    const first = Math.min(...arrivals);
    const lastArrival = Math.max(...arrivals);
    // Done means recorded: every delivery marked delivered with its log row written.
    for (;;) {
      const [row] = await bdb.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'delivered'`);
      if (row.n >= events) break;
      await sleep(20);
    }
    const done = nowMs();
    const [logs] = await bdb.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_logs`);
    const seconds = (done - first) / 1000;
    const throughput = {
      events,
      seconds,
      deliveriesPerSec: events / seconds,
      receiverPerSec: events / Math.max((lastArrival - first) / 1000, 0.001),
      logRows: logs.n,
      duplicates: receiver.duplicates,
    };
    log(`webhooks: throughput ${Math.round(throughput.deliveriesPerSec)} deliveries/s (${events} in ${seconds.toFixed(1)} s, ${logs.n} log rows, ${receiver.duplicates} duplicates)`);

    // Latency at a steady commit rate, one transaction per event.
    const fullProject = await bdb.db.prisma.project.findUniqueOrThrow({ where: { id: project.id } });
    const ctx = { ...systemCtx(services, fullProject, 'bench'), source: 'api' as const };
    const steady = async (count: number, label: string) => {
      const committedAt = new Map<string, number>();
      const pending: Promise<void>[] = [];
      const failures: string[] = [];
      const start = nowMs();
      for (let i = 0; i < count; i++) {
        const due = start + (i * 1000) / rate;
        const wait = due - nowMs();
        if (wait > 0) await sleep(wait);
        const entryUuid = crypto.randomUUID();
        pending.push(
          bdb.db.prisma
            .$transaction(
              (tx) => emitContentEvent(tx, ctx, { event: 'content.updated', collection: ref, entryUuid, locale: 'en', entry: { uuid: entryUuid, fields: { title: `${label} ${i}` } } }, passwordNamesSql),
              { maxWait: 30_000 },
            )
            .then(
              () => void committedAt.set(entryUuid, nowMs()),
              (err: Error) => void failures.push(err.message),
            ),
        );
      }
      await Promise.all(pending);
      if (failures.length) log(`webhooks: ${failures.length} event transactions failed (${failures[0]})`);
      await receiver.waitFor(committedAt.size, 120_000, (d) => d.entryUuid !== undefined && committedAt.has(d.entryUuid));
      const samples = [...receiver.deliveries.values()].filter((d) => d.entryUuid && committedAt.has(d.entryUuid)).map((d) => d.at - committedAt.get(d.entryUuid!)!);
      return { samples, ...percentiles(samples), max: samples.length ? Math.max(...samples) : Infinity };
    };
    receiver.reset();
    const l = await steady(latencyEvents, 'live');
    const latency = { rate, events: latencyEvents, delivered: l.samples.length, p50: l.p50, p95: l.p95, p99: l.p99, max: l.max };
    log(`webhooks: commit → delivery at ${rate}/s: p50 ${l.p50.toFixed(1)} ms, p95 ${l.p95.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms, max ${l.max.toFixed(1)} ms (${l.samples.length}/${latencyEvents})`);

    // Recovery from a Redis outage: the deliveries the dispatcher made while Redis was down sit in
    // PostgreSQL, due, in no queue; the worker's sweeper finds them. Fresh events keep coming meanwhile.
    let recovery: WebhookBenchResult['recovery'];
    if (backlog > 0) {
      receiver.reset();
      await bdb.db.query(
        `INSERT INTO webhook_deliveries (id, webhook_id, event, body, status, attempts, next_attempt_at)
         SELECT gen_random_uuid(), w.id, 'content.updated',
                jsonb_build_object('event', 'content.updated', 'source', 'api', 'project_uuid', p.uuid, 'collection', $2::jsonb, 'entry_uuid', u, 'locale', 'en',
                  'content_entry', jsonb_build_object('uuid', u, 'locale', 'en', 'state', 'draft',
                    'fields', jsonb_build_object('title', 'Backlog ' || i, 'body', repeat('lorem ipsum ', 70)))),
                'pending', 0, now() - interval '1 minute'
         FROM webhooks w JOIN projects p ON p.id = w.project_id, (SELECT i, gen_random_uuid() AS u FROM generate_series(1, $1::int) i) s
         WHERE w.project_id = $3`,
        [backlog, JSON.stringify(ref), project.id],
      );
      const before = receiver.count();
      const began = nowMs();
      const fresh = await steady(Math.min(latencyEvents, 10 * rate), 'fresh');
      // Then until the backlog is all delivered.
      for (;;) {
        const [row] = await bdb.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'delivered'`);
        if (row.n === 0 || nowMs() - began > 300_000) break;
        await sleep(100);
      }
      const drainSeconds = (nowMs() - began) / 1000;
      const drained = receiver.count() - before - fresh.samples.length;
      recovery = { backlog, drained, drainSeconds, drainPerSec: drained / drainSeconds, rate, events: Math.min(latencyEvents, 10 * rate), delivered: fresh.samples.length, p50: fresh.p50, p99: fresh.p99, max: fresh.max };
      log(`webhooks: after an outage left ${backlog} deliveries waiting, fresh events at ${rate}/s: p50 ${fresh.p50.toFixed(1)} ms, p99 ${fresh.p99.toFixed(1)} ms; backlog drained at ${Math.round(recovery.drainPerSec)}/s (${drained} in ${drainSeconds.toFixed(1)} s)`);
    }
    return { ceiling, throughput, latency, ...(recovery ? { recovery } : {}) };
  } finally {
    await worker?.stop();
    await receiver.close();
    await services.close().catch(() => {});
    await bdb.close();
    await cleanRedis(redisUrl, prefix);
    await cleanRedis(redisUrl, `${prefix}-ceiling`);
  }
}

/**
 * The reference the figure is read against: N jobs already queued, one separate process with a
 * BullMQ worker (same concurrency) whose processor only POSTs a 1 KB JSON body — no database, no
 * signing, no logs. Jobs/s from first to last arrival.
 */
async function bareQueueCeiling(redisUrl: string, prefix: string, url: string, receiver: WebhookReceiver, jobs: number) {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue('ceiling', { connection, prefix });
  const filler = 'x'.repeat(1000);
  for (let i = 0; i < jobs; i += 1000) {
    await queue.addBulk(
      Array.from({ length: Math.min(1000, jobs - i) }, (_, k) => ({
        name: 'post',
        data: { delivery_id: `c-${i + k}`, filler },
        opts: { jobId: `c-${i + k}`, removeOnComplete: true },
      })),
    );
  }
  const child = spawnTsx('ceiling worker', 'bench/webhooks.ts', {
    BENCH_WEBHOOK_ROLE: 'ceiling-worker',
    REDIS_URL: redisUrl,
    CEILING_PREFIX: prefix,
    CEILING_URL: url,
    WEBHOOK_CONCURRENCY: process.env.WEBHOOK_CONCURRENCY ?? '64',
    ...(process.env.BENCH_WORKER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_WORKER_NODE_OPTIONS } : {}),
  });
  try {
    if (!(await receiver.waitFor(jobs, 300_000))) throw new Error(`ceiling: only ${receiver.count()} of ${jobs} arrived:\n${child.tail()}`);
    const at = [...receiver.deliveries.values()].map((d) => d.at);
    return { jobs, perSec: jobs / Math.max((Math.max(...at) - Math.min(...at)) / 1000, 0.001) };
  } finally {
    await child.stop();
    await queue.close();
    connection.disconnect();
  }
}

/** Child-process side of bareQueueCeiling. */
function runCeilingWorker(): void {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const target = new URL(process.env.CEILING_URL!);
  const connection = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
  new Worker(
    'ceiling',
    (job) =>
      new Promise<void>((resolve, reject) => {
        const body = Buffer.from(JSON.stringify(job.data));
        const req = http.request(target, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(body.length) } }, (res) => {
          res.resume();
          res.on('end', () => resolve());
        });
        req.on('error', reject);
        req.end(body);
      }),
    { connection, prefix: process.env.CEILING_PREFIX!, concurrency: Number(process.env.WEBHOOK_CONCURRENCY ?? 64) },
  );
}

if (process.env.BENCH_WEBHOOK_ROLE === 'ceiling-worker') {
  runCeilingWorker();
} else if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  runWebhookBench()
    .then((r) => {
      const ok = r.throughput.deliveriesPerSec > 1000 && r.latency.p99 < 250;
      const ratio = r.throughput.deliveriesPerSec / r.ceiling.perSec;
      process.stdout.write(
        `${JSON.stringify(r, null, 2)}\nworker / bare-BullMQ ceiling: ${(ratio * 100).toFixed(0)} %\ntargets (> 1000/s, p99 < 250 ms): ${ok ? 'met' : 'NOT met'}\n`,
      );
      process.exit(0);
    })
    .catch((err) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    });
}
