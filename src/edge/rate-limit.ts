import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { rateLimited } from '../errors.ts';
import { LeasedLimiter, type LeaseState } from './rate-lease.ts';

/**
 * Rate-limit budget an operation draws from (docs/foundation.md: bulk and webhook routes answer 429 too).
 * `anonymous` is keyed by client address: what requests without valid credentials draw from.
 */
export type RateBucket = 'default' | 'bulk' | 'webhooks' | 'anonymous';

/** A budget as the `RateLimit-*` response headers report it. */
export interface RateState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  /** Window length in seconds (`RateLimit-Policy`). */
  windowSeconds: number;
}

export interface RateLimiter {
  /**
   * Takes one point from `key`'s budget in `bucket`; throws a 429 AppError with Retry-After when
   * spent. With `requestId`, the budget's state after this draw (or at the refusal) is kept for
   * `takeState(requestId)`, which the HTTP layer calls once as the response goes out.
   */
  consume(key: string, bucket: RateBucket, requestId?: string): Promise<void>;
  /**
   * One point without waiting, when this replica holds a lease for `key` (src/edge/rate-lease.ts):
   * the budget's state after the draw, or undefined when only `consume` can decide (nothing taken).
   */
  tryConsume(key: string, bucket: RateBucket): RateState | undefined;
  takeState(requestId: string): RateState | undefined;
}

/**
 * Bulk requests carry up to 50-100 items each, so their own budget is a tenth of the default. An
 * address without credentials gets a tenth too: it can load GraphiQL's schema, not flood the server.
 */
const bucketShare: Record<RateBucket, number> = { default: 1, bulk: 0.1, webhooks: 0.5, anonymous: 0.1 };
const WINDOW_SECONDS = 60;
/** States not collected (a response that never went out) are dropped past this many. */
const MAX_PENDING_STATES = 10_000;

interface BucketLimiter {
  points: number;
  consume(key: string): Promise<LeaseState>;
  tryConsume(key: string): LeaseState | undefined;
}

/**
 * Per-token fixed windows of one minute. With Redis every replica draws from the same budget, a busy
 * token in leases (src/edge/rate-lease.ts) so it costs no Redis round trip per request; if
 * Redis is unreachable the limiter falls back to a per-process memory budget rather than failing
 * requests (rate limiting must never be the reason content writes stop). Under leasing the remaining
 * count reported is this replica's view (what Redis said at the last take plus its unused lease).
 */
export function createRateLimiter(perMinute: number, redis?: Redis, opts: { keyPrefix?: string } = {}): RateLimiter {
  const prefix = opts.keyPrefix ?? 'cms:rl';
  const limiters = new Map<RateBucket, BucketLimiter>();
  for (const bucket of Object.keys(bucketShare) as RateBucket[]) {
    const points = Math.max(1, Math.floor(perMinute * bucketShare[bucket]));
    const memory = new RateLimiterMemory({ points, duration: WINDOW_SECONDS, keyPrefix: `rl:${bucket}` });
    if (redis) {
      const leased = new LeasedLimiter(
        new RateLimiterRedis({ storeClient: redis, points, duration: WINDOW_SECONDS, keyPrefix: `${prefix}:${bucket}`, insuranceLimiter: memory, rejectIfRedisNotReady: true }),
        { points },
      );
      limiters.set(bucket, { points, consume: (key) => leased.consume(key), tryConsume: (key) => leased.tryConsume(key) });
    } else {
      limiters.set(bucket, {
        points,
        consume: async (key) => {
          const res = await memory.consume(key);
          return { remaining: res.remainingPoints, msBeforeReset: res.msBeforeNext };
        },
        // The memory limiter only answers through a promise.
        tryConsume: () => undefined,
      });
    }
  }
  const states = new Map<string, RateState>();
  const keep = (requestId: string | undefined, state: RateState) => {
    if (requestId === undefined) return;
    if (states.size >= MAX_PENDING_STATES) states.clear();
    states.set(requestId, state);
  };
  return {
    async consume(key, bucket, requestId) {
      const limiter = limiters.get(bucket)!;
      try {
        const s = await limiter.consume(key);
        keep(requestId, { limit: limiter.points, remaining: s.remaining, resetSeconds: Math.ceil(s.msBeforeReset / 1000), windowSeconds: WINDOW_SECONDS });
      } catch (res) {
        if (!(res instanceof RateLimiterRes)) throw res;
        const retryAfter = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
        keep(requestId, { limit: limiter.points, remaining: 0, resetSeconds: retryAfter, windowSeconds: WINDOW_SECONDS });
        throw rateLimited(retryAfter);
      }
    },
    tryConsume(key, bucket) {
      const limiter = limiters.get(bucket)!;
      const s = limiter.tryConsume(key);
      return s && { limit: limiter.points, remaining: s.remaining, resetSeconds: Math.ceil(s.msBeforeReset / 1000), windowSeconds: WINDOW_SECONDS };
    },
    takeState(requestId) {
      const s = states.get(requestId);
      if (s) states.delete(requestId);
      return s;
    },
  };
}
