import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Queue } from 'bullmq';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { EdgeServices } from '../edge/services.ts';
import { drawAddressBudget } from '../edge/pipeline/stages.ts';
import { AppError } from '../errors.ts';
import { metricsRegistryOf } from '../edge/metrics.ts';
import type { ResponseObserver } from './response-observers.ts';
import { registerReplicaMetrics } from './replica-metrics.ts';

/**
 * Prometheus metrics (prom-client). Per request: one histogram observation by method, route pattern
 * and status, never the raw URL (the returned observer, run by src/http/response-observers.ts).
 * Everything else is read when Prometheus scrapes: pool use and read-cache counters from memory, and the outbox / webhook / queue figures with a few indexed
 * queries, shared by all gauges of one scrape and memoised for a second, so no SQL ever runs on the
 * request path and a burst of scrapes costs one round.
 */
export function registerMetrics(app: FastifyInstance, services: EdgeServices): ResponseObserver {
  const registry = metricsRegistryOf(services);
  const httpDuration = new Histogram({
    name: 'cms_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status, with their latency',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // One labelled child per (method, route, status), kept: prom-client hashes a label object on
  // every observe(), which costs more than the observation itself on a cached read.
  const series = new Map<string, { observe(v: number): void }>();
  const observe: ResponseObserver = ({ method, route, status, ms }) => {
    const key = `${method} ${status} ${route}`;
    let child = series.get(key);
    if (!child) {
      child = httpDuration.labels(method, route, String(status));
      series.set(key, child);
    }
    child.observe(ms / 1000);
  };
  registerScrapeGauges(registry, services);
  if (services.replicas) registerReplicaMetrics(registry, services.replicas);
  // With METRICS_PORT the figures are served on their own listener (src/main.ts), not to the public port.
  if (services.config.METRICS_PORT === undefined) {
    app.get('/metrics', async (req, reply) => {
      if (!metricsAuthorized(services, req.headers.authorization)) {
        await drawAddressBudget(services, req.ip);
        return reply.status(401).header('www-authenticate', 'Bearer realm="metrics"').send({ message: 'Unauthenticated.' });
      }
      return reply.type(registry.contentType).send(await registry.metrics());
    });
  }
  return observe;
}

/**
 * METRICS_TOKEN set: the scrape must send `Authorization: Bearer <token>` (compared in constant time).
 * A wrong token draws from the address's budget of requests without valid credentials (as every
 * other secret check does), so an operator-chosen token cannot be guessed at line rate.
 */
function metricsAuthorized(services: EdgeServices, header: string | undefined): boolean {
  const token = services.config.METRICS_TOKEN;
  if (!token) return true;
  const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7).trim() : '');
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

/** METRICS_PORT: a bare listener answering GET /metrics only, on HOST. */
export async function serveMetrics(services: EdgeServices, port: number, host: string): Promise<Server> {
  const server = createServer(metricsHandler(services));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return server;
}

/** The METRICS_PORT listener's requests: GET /metrics (with METRICS_TOKEN when set), 404 otherwise. */
export function metricsHandler(services: EdgeServices): (req: IncomingMessage, res: ServerResponse) => void {
  const registry = metricsRegistryOf(services);
  return (req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Not found.' }));
      return;
    }
    if (!metricsAuthorized(services, req.headers.authorization)) {
      drawAddressBudget(services, req.socket.remoteAddress).then(
        () => res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="metrics"' }).end(JSON.stringify({ message: 'Unauthenticated.' })),
        (err: unknown) => {
          if (!(err instanceof AppError) || err.retryAfter === undefined) return res.writeHead(500).end();
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(err.retryAfter) }).end(JSON.stringify(err.toBody()));
        },
      );
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  };
}

interface Snapshot {
  outboxBacklog: number;
  outboxOldestSeconds: number;
  deliveries: Record<string, number>;
  attempts: Array<{ outcome: string; n: number; p50: number; p95: number }>;
  queue?: Record<string, number>;
}

function registerScrapeGauges(registry: Registry, services: EdgeServices): void {
  const { database, readCache, graphqlReadCache } = services;
  let queue: Queue | undefined;
  let memo: { at: number; value: Promise<Snapshot> } | undefined;
  const snapshot = (): Promise<Snapshot> => {
    if (!memo || Date.now() - memo.at > 1000) memo = { at: Date.now(), value: readSnapshot() };
    return memo.value;
  };
  const readSnapshot = async (): Promise<Snapshot> => {
    const [outbox] = await database.query<{ backlog: number; oldest: number }>(
      `SELECT count(*)::int AS backlog, COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS oldest
         FROM outbox_events WHERE dispatched_at IS NULL`,
    );
    const deliveries = await database.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE status IN ('pending', 'sending') GROUP BY status`,
    );
    // Attempts of every deliverer (API replicas and `npm run worker` alike) over the last five
    // minutes: the worker process serves no HTTP, so its figures are read where they are written.
    const attempts = await database.query<{ outcome: string; n: number; p50: number; p95: number }>(
      `SELECT CASE WHEN status ~ '^2[0-9][0-9]$' THEN 'delivered' WHEN status ~ '^[0-9]+$' THEN 'http_error' ELSE status END AS outcome,
              count(*)::int AS n,
              COALESCE(percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms), 0)::float8 AS p50,
              COALESCE(percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms), 0)::float8 AS p95
         FROM webhook_logs WHERE created_at > now() - interval '5 minutes' GROUP BY 1`,
    );
    const snap: Snapshot = {
      outboxBacklog: Number(outbox?.backlog ?? 0),
      outboxOldestSeconds: Number(outbox?.oldest ?? 0),
      deliveries: Object.fromEntries(deliveries.map((d) => [d.status, Number(d.n)])),
      attempts: attempts.map((a) => ({ outcome: a.outcome, n: Number(a.n), p50: Number(a.p50), p95: Number(a.p95) })),
    };
    if (services.config.REDIS_URL) {
      if (!queue) {
        const opts = services.webhooks.options;
        queue = new Queue(opts.queueName, { prefix: opts.queuePrefix, connection: { url: services.config.REDIS_URL, maxRetriesPerRequest: 1, enableOfflineQueue: false } as never });
        queue.on('error', () => {});
        const q = queue;
        services.onClose.push(() => q.close());
      }
      snap.queue = await withTimeout(queue.getJobCounts('waiting', 'active', 'delayed', 'failed'), 1000).catch(() => undefined);
    }
    return snap;
  };
  new Gauge({
    name: 'cms_db_pool_connections',
    help: 'PostgreSQL pool connections of this process by state (total, idle, waiting clients, max)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const s = database.poolStats?.();
      if (!s) return;
      for (const [state, n] of Object.entries(s)) this.set({ state }, n);
    },
  });
  new Counter({
    name: 'cms_read_cache_requests_total',
    help: 'Published REST reads looked up in the read cache, by result (hit, miss)',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      if (!readCache) return;
      this.reset();
      this.inc({ result: 'hit' }, readCache.hits);
      this.inc({ result: 'miss' }, readCache.misses);
    },
  });
  new Counter({
    name: 'cms_graphql_read_cache_requests_total',
    help: 'Content-read GraphQL queries looked up in the read cache, by result (hit, miss)',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      if (!graphqlReadCache) return;
      this.reset();
      this.inc({ result: 'hit' }, graphqlReadCache.hits);
      this.inc({ result: 'miss' }, graphqlReadCache.misses);
    },
  });
  new Gauge({
    name: 'cms_read_cache_entries',
    help: 'Entries held in the published REST read cache',
    registers: [registry],
    collect() {
      if (readCache) this.set(readCache.size);
    },
  });
  const fromSnapshot = <L extends string>(name: string, help: string, labelNames: readonly L[], fill: (gauge: Gauge<L>, s: Snapshot) => void) =>
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        // A scrape during a database outage still reports what memory knows; these are left out.
        const s = await snapshot().catch(() => undefined);
        if (s) fill(this, s);
      },
    });
  fromSnapshot('cms_outbox_backlog', 'Outbox events not yet dispatched to webhook deliveries', [], (g, s) => g.set(s.outboxBacklog));
  fromSnapshot('cms_outbox_oldest_age_seconds', 'Age of the oldest undispatched outbox event (0 when none)', [], (g, s) => g.set(s.outboxOldestSeconds));
  fromSnapshot('cms_webhook_deliveries_open', 'Webhook deliveries waiting (pending) or being sent (sending), all processes', ['status'], (g, s) => {
    for (const status of ['pending', 'sending']) g.set({ status }, s.deliveries[status] ?? 0);
  });
  fromSnapshot(
    'cms_webhook_attempts_5m',
    'Webhook delivery attempts of the last five minutes by outcome (delivered, http_error, timeout, network, blocked...), all processes',
    ['outcome'],
    (g, s) => {
      g.reset();
      for (const a of s.attempts) g.set({ outcome: a.outcome }, a.n);
    },
  );
  fromSnapshot('cms_webhook_attempt_duration_seconds_5m', 'Webhook delivery latency over the last five minutes by outcome and quantile (0.5, 0.95)', ['outcome', 'quantile'], (g, s) => {
    g.reset();
    for (const a of s.attempts) {
      g.set({ outcome: a.outcome, quantile: '0.5' }, a.p50 / 1000);
      g.set({ outcome: a.outcome, quantile: '0.95' }, a.p95 / 1000);
    }
  });
  fromSnapshot('cms_webhook_queue_jobs', 'BullMQ delivery queue jobs by state (with REDIS_URL)', ['state'], (g, s) => {
    if (s.queue) for (const [state, n] of Object.entries(s.queue)) g.set({ state }, n);
  });
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms)))]).finally(() => clearTimeout(timer));
}
