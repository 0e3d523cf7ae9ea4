import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { rateLimited } from '../errors.ts';
import { LeasedLimiter } from './rate-lease.ts';

/**
 * Rate-limit budget an operation draws from (spec §7: bulk and webhook routes answer 429 too).
 * `anonymous` is keyed by client address: what requests without valid credentials draw from.
 */
export type RateBucket = 'default' | 'bulk' | 'webhooks' | 'anonymous';

export interface RateLimiter {
  /** Takes one point from `key`'s budget in `bucket`; throws a 429 AppError with Retry-After when spent. */
  consume(key: string, bucket: RateBucket): Promise<void>;
}

/**
 * Bulk requests carry up to 50-100 items each, so their own budget is a tenth of the default. An
 * address without credentials gets a tenth too: it can load GraphiQL's schema, not flood the server.
 */
const bucketShare: Record<RateBucket, number> = { default: 1, bulk: 0.1, webhooks: 0.5, anonymous: 0.1 };

/**
 * Per-token fixed windows of one minute. With Redis every replica draws from the same budget, a busy
 * token in leases (src/edge/rate-lease.ts) so it costs no Redis round trip per request; if
 * Redis is unreachable the limiter falls back to a per-process memory budget rather than failing
 * requests (rate limiting must never be the reason content writes stop).
 */
export function createRateLimiter(perMinute: number, redis?: Redis, opts: { keyPrefix?: string } = {}): RateLimiter {
  const prefix = opts.keyPrefix ?? 'cms:rl';
  const limiters = new Map<RateBucket, Pick<RateLimiterAbstract, 'consume'> | LeasedLimiter>();
  for (const bucket of Object.keys(bucketShare) as RateBucket[]) {
    const points = Math.max(1, Math.floor(perMinute * bucketShare[bucket]));
    const memory = new RateLimiterMemory({ points, duration: 60, keyPrefix: `rl:${bucket}` });
    limiters.set(
      bucket,
      redis
        ? new LeasedLimiter(
            new RateLimiterRedis({ storeClient: redis, points, duration: 60, keyPrefix: `${prefix}:${bucket}`, insuranceLimiter: memory, rejectIfRedisNotReady: true }),
            { points },
          )
        : memory,
    );
  }
  return {
    async consume(key, bucket) {
      try {
        await limiters.get(bucket)!.consume(key);
      } catch (res) {
        if (res instanceof RateLimiterRes) throw rateLimited(Math.max(1, Math.ceil(res.msBeforeNext / 1000)));
        throw res;
      }
    },
  };
}
