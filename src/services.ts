/**
 * The composition root: builds a process's Services once at start. Only entry points (src/main.ts,
 * src/worker/main.ts, src/cli/) import this file; everything else receives the result typed as
 * `Services` (src/context.ts). Checked by .dependency-cruiser.cjs.
 */
import { Redis } from 'ioredis';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import type { EdgeServices } from './edge/services.ts';
import { openDatabase, openPostgres, poolLimits, type Database } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { listenForChanges } from './db/change-feed.ts';
import { ChangeHints } from './db/change-hints.ts';
import { startContentLogCompaction } from './db/content-log.ts';
import { ReplicaSet } from './db/replicas.ts';
import { OUTBOX_CHANNEL } from './events/port.ts';
import { createRateLimiter } from './edge/rate-limit.ts';
import { ReadCache, type CachedAnswer } from './edge/read-cache/store.ts';
import { KnownRestReads } from './edge/read-cache/known-rest-reads.ts';
import { AuthCache } from './auth/auth-cache.ts';
import { TrustedDocumentMemory } from './persisted/memory.ts';
import { TokenUsage } from './auth/token-usage.ts';
import type { AuthRow } from './auth/credentials.ts';
import { createWebhookRuntime } from './delivery/runtime.ts';
import { webhookOptions } from './delivery/options.ts';
import { purgeAdapterFor } from './edge/cdn/purge-adapters.ts';
import { bullPurgeQueue, localPurgeQueue } from './edge/cdn/purge-queue.ts';
import { EdgePurger } from './edge/cdn/purger.ts';
import { purgeExpiredTrash } from './entries/operations/trash-retention.ts';
import { LiveHub } from './live/hub.ts';
import { startStageLog } from './live/stages.ts';
import { createScheduleRuntime } from './schedules/runtime.ts';
import { releaseRunner } from './releases/operations/schedule.ts';

/**
 * Connections of the live hub's own pool: one for the change stream's serial outbox reads, the rest
 * for the changed entries' reads (one statement per pass per collection and state) and resumes.
 */
const LIVE_READ_CONNECTIONS = 3;

/** A process's services: the kernel every operation sees (Services, src/context.ts) plus the request pipeline's. */
export type AppServices = EdgeServices;

/**
 * `authCache`: this process answers requests (and reads from DATABASE_REPLICA_URLS when set, and runs the CDN purger) and should hold authentications (the server); the
 * worker and the CLI authenticate nobody and skip the extra LISTEN connection.
 */
export async function createServices(config: Config, log: Logger, opts: { database?: Database; authCache?: boolean } = {}): Promise<AppServices> {
  const database = opts.database ?? (await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, log, limits: poolLimits(config) }));
  if (config.MIGRATE_ON_START) {
    const applied = await migrate(database);
    // One line however many: a fresh database applies every migration, and their names are in _prisma_migrations.
    if (applied.length) log.info({ applied: applied.length, last: applied[applied.length - 1] }, `${applied.length} migration${applied.length === 1 ? '' : 's'} applied`);
  }
  // Request-path Redis fails fast instead of queueing commands while disconnected.
  const redis = config.REDIS_URL
    ? new Redis(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false })
    : undefined;
  redis?.on('error', (err) => log.warn({ err: err.message }, 'redis connection error'));
  // One change feed per process, opened on first use: at once for the caches, on the first live
  // subscriber for the live hub, at start for the CDN purger. Embedded PGlite multiplexes every
  // connection onto one session, where a LISTEN connection hears only its own statements: there the
  // process that owns the database hears every commit's notifications itself (`database.listen`),
  // which the CDN purger follows; the caches and the live hub keep to what they do without a feed.
  const feedUrl = config.DATABASE_URL && database.kind === 'postgres' ? config.DATABASE_URL : undefined;
  const feedSource = feedUrl ?? database.listen;
  let feed = opts.authCache && config.AUTH_CACHE_MS > 0 && feedUrl ? listenForChanges(feedUrl, log, { database }) : undefined;
  // Without `database` the embedded feed carries project, token and manifest changes only: nothing there reads content from it.
  const processFeed = feedSource ? () => (feed ??= listenForChanges(feedSource, log, feedUrl ? { database } : {})) : undefined;
  const authCache = feed ? new AuthCache<AuthRow>(feed, config.AUTH_CACHE_MS) : undefined;
  const trustedDocuments = feed ? new TrustedDocumentMemory(feed, config.AUTH_CACHE_MS) : undefined;
  // Readers on other replicas (change feeds, live hubs, dispatchers) LISTEN; embedded PGlite has none.
  const changeHints = database.kind === 'postgres' ? new ChangeHints(database, log, [OUTBOX_CHANNEL]) : undefined;
  const stopCompaction = startContentLogCompaction(database, log);
  // Only a process that answers requests reads from replicas; workers and the CLI use the primary.
  const replicas =
    opts.authCache && database.kind === 'postgres' && config.DATABASE_REPLICA_URLS.length > 0
      ? new ReplicaSet(database, {
          urls: config.DATABASE_REPLICA_URLS,
          maxLagMs: config.REPLICA_MAX_LAG_MS,
          waitMs: config.REPLICA_WAIT_MS,
          checkMs: config.REPLICA_CHECK_MS,
          poolSize: 10,
          limits: poolLimits(config),
          log,
        })
      : undefined;
  await replicas?.start();
  startStageLog(config.LIVE_STAGE_LOG);
  const services: AppServices = {
    config,
    log,
    database,
    replicas,
    redis,
    rateLimiter: createRateLimiter(config.RATE_LIMIT_PER_MINUTE, redis),
    readCache: config.READ_CACHE_MB > 0 ? new ReadCache(config.READ_CACHE_MB * 1_048_576) : undefined,
    knownRestReads: config.READ_CACHE_MB > 0 ? new KnownRestReads() : undefined,
    graphqlReadCache: config.READ_CACHE_MB > 0 ? new ReadCache<CachedAnswer>(config.READ_CACHE_MB * 1_048_576, (r) => 2 * r.json.length + (r.etag?.length ?? 0) + 2 * (r.tags?.join(' ').length ?? 0)) : undefined,
    authCache,
    trustedDocuments,
    changeHints,
    tokenUsage: new TokenUsage(database, log),
    live: new LiveHub({
      database,
      log,
      // Embedded PGlite multiplexes one session, where LISTEN is not dependable: the hub polls instead.
      listenUrl: database.kind === 'postgres' ? config.DATABASE_URL : undefined,
      feed: processFeed,
      reads: feedUrl ? () => openPostgres(feedUrl, LIVE_READ_CONNECTIONS, { applicationName: 'cms live reads' }) : undefined,
      limits: {
        maxSubscriptions: config.LIVE_MAX_SUBSCRIPTIONS,
        maxPerToken: config.LIVE_MAX_PER_TOKEN,
        maxQueue: config.LIVE_MAX_QUEUE,
        maxQueueBytes: config.LIVE_MAX_QUEUE_BYTES,
        resumeWindowSeconds: config.LIVE_RESUME_WINDOW_SECONDS,
        maxBacklog: config.LIVE_MAX_BACKLOG,
        idleTimeoutMs: config.LIVE_IDLE_TIMEOUT_MS,
        pollMs: config.LIVE_POLL_MS,
        gapTimeoutMs: 10_000,
      },
    }),
    // The deliverer's periodic retention pass also empties trash older than TRASH_RETENTION_DAYS.
    webhooks: createWebhookRuntime({ config, database, log, retention: { trashed_entries: () => purgeExpiredTrash(services, config.TRASH_RETENTION_DAYS) } }),
    schedules: createScheduleRuntime({ services: () => services, redisUrl: config.REDIS_URL, log }),
    onClose: [],
    async close() {
      for (const fn of services.onClose.reverse()) await fn().catch((err) => log.error({ err }, 'close hook failed'));
      authCache?.close();
      trustedDocuments?.close();
      await feed?.close();
      await changeHints?.close();
      await stopCompaction();
      redis?.disconnect();
      await replicas?.close();
      await database.close();
    },
  };
  // Webhook delivery (and the CDN purger) hear of this process's outbox writes at once: embedded PGlite has no LISTEN.
  services.outboxReaders = [services.webhooks];
  // Only processes that answer requests purge (every one of them reads every change): a worker or a
  // CLI command would open a stream, listeners and a BullMQ worker to send what the API replicas send.
  const adapter = opts.authCache ? purgeAdapterFor(config) : undefined;
  if (adapter) {
    const queueOptions = { prefix: webhookOptions(config).queuePrefix, delayMs: config.EDGE_PURGE_DELAY_MS };
    const queue = config.REDIS_URL ? bullPurgeQueue(config.REDIS_URL, adapter, log, queueOptions) : localPurgeQueue(adapter, log, queueOptions);
    // It reads the outbox through the live hub's stream and hears the process's change feed: one
    // outbox reader and one LISTEN connection per replica, not one each.
    const purger = new EdgePurger({ database, log, queue, changes: services.live, feed: processFeed?.() });
    await purger.start();
    services.outboxReaders = [services.webhooks, purger];
    services.assetsChanged = (uuids) => purger.assetsChanged(uuids);
    services.onClose.push(() => purger.close());
  }
  services.onClose.push(() => services.webhooks.close());
  // Release schedules run the releases domain's publish (the schedules domain does not know releases).
  services.schedules!.releases = releaseRunner;
  services.onClose.push(() => services.schedules!.close());
  services.onClose.push(() => services.live.close());
  services.onClose.push(() => services.tokenUsage!.close());
  return services;
}
