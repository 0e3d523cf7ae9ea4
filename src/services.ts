import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import type { Logger } from './logger.ts';
import { openDatabase } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { Redis } from 'ioredis';
import { createRateLimiter, type RateLimiter } from './http/rate-limit.ts';
import { ReadCache } from './http/read-cache.ts';
import { AuthCache } from './auth/auth-cache.ts';
import type { AuthRow } from './auth/authenticate.ts';
import { listenForChanges } from './db/change-feed.ts';
import { createWebhookRuntime, type WebhookRuntime } from './webhooks/runtime.ts';

/**
 * Process-wide dependencies, created once at start and handed to every request context.
 * Domains add what they own here (rate limiter, queue, asset storage, caches).
 */
export interface Services {
  config: Config;
  log: Logger;
  database: Database;
  /** Shared Redis connection for request-path work (rate limits, cache invalidation); absent in embedded mode. */
  redis?: Redis;
  rateLimiter: RateLimiter;
  /** Published REST reads keyed by content generation (src/http/read-cache.ts); absent when READ_CACHE_MB=0. */
  readCache?: ReadCache;
  /**
   * Authentications held in process, dropped by the database's change notifications
   * (src/auth/auth-cache.ts); absent with AUTH_CACHE_MS=0 and on embedded PGlite, where every
   * request asks the database.
   */
  authCache?: AuthCache<AuthRow>;
  /** Webhook delivery: enqueue from any process; `webhooks.start()` makes this process a deliverer. */
  webhooks: WebhookRuntime;
  /** Closes everything this process opened, in reverse order. */
  close(): Promise<void>;
  /** Hooks run by close(); domains register theirs as they start. */
  onClose: Array<() => Promise<void>>;
}

/**
 * `authCache`: this process answers requests and should hold authentications (the server); the
 * worker and the CLI authenticate nobody and skip the extra LISTEN connection.
 */
export async function createServices(config: Config, log: Logger, opts: { database?: Database; authCache?: boolean } = {}): Promise<Services> {
  const database = opts.database ?? (await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, log }));
  if (config.MIGRATE_ON_START) {
    const applied = await migrate(database);
    if (applied.length) log.info({ applied }, 'migrations applied');
  }
  // Request-path Redis fails fast instead of queueing commands while disconnected.
  const redis = config.REDIS_URL
    ? new Redis(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false })
    : undefined;
  redis?.on('error', (err) => log.warn({ err: err.message }, 'redis connection error'));
  // Embedded PGlite multiplexes every connection onto one session, where LISTEN is not dependable.
  const feed = opts.authCache && config.AUTH_CACHE_MS > 0 && config.DATABASE_URL && database.kind === 'postgres' ? listenForChanges(config.DATABASE_URL, log) : undefined;
  const authCache = feed ? new AuthCache<AuthRow>(feed, config.AUTH_CACHE_MS) : undefined;
  const services: Services = {
    config,
    log,
    database,
    redis,
    rateLimiter: createRateLimiter(config.RATE_LIMIT_PER_MINUTE, redis),
    readCache: config.READ_CACHE_MB > 0 ? new ReadCache(config.READ_CACHE_MB * 1_048_576) : undefined,
    authCache,
    webhooks: createWebhookRuntime({ config, database, log }),
    onClose: [],
    async close() {
      for (const fn of services.onClose.reverse()) await fn().catch((err) => log.error({ err }, 'close hook failed'));
      authCache?.close();
      await feed?.close();
      redis?.disconnect();
      await database.close();
    },
  };
  services.onClose.push(() => services.webhooks.close());
  return services;
}
