import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { LRUCache } from 'lru-cache';

/** The store of the Apollo persisted-query protocol: a hash's document, or nothing. */
export interface APQStore {
  get(hash: string): string | null | undefined | Promise<string | null | undefined>;
  set(hash: string, query: string): void | Promise<void>;
}

/** How long a registered hash is remembered after its last registration. */
export const APQ_TTL_SECONDS = 24 * 60 * 60;
/** Documents longer than this are run but not remembered (a client keeps sending their text). */
export const APQ_MAX_DOCUMENT_BYTES = 64 * 1024;
/** Entries of the in-process store when there is no Redis. */
const MEMORY_ENTRIES = 2_000;

const KEY_PREFIX = 'apq:';

/**
 * Where automatic persisted queries live: in Redis when REDIS_URL is configured, so a hash
 * registered through one replica is known to all, with a TTL; in a bounded LRU otherwise. Redis
 * failing is not the request's failure: a lookup that cannot answer is a miss (the client sends the
 * text again), a registration that cannot be written is skipped.
 */
export function createApqStore(redis: Redis | undefined, log: Logger): APQStore {
  const fits = (query: string) => Buffer.byteLength(query) <= APQ_MAX_DOCUMENT_BYTES;
  if (!redis) {
    const lru = new LRUCache<string, string>({ max: MEMORY_ENTRIES, ttl: APQ_TTL_SECONDS * 1000 });
    return {
      get: (hash) => lru.get(hash),
      set: (hash, query) => void (fits(query) && lru.set(hash, query)),
    };
  }
  return {
    async get(hash) {
      try {
        return await redis.get(KEY_PREFIX + hash);
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'APQ lookup failed; answered as a miss');
        return null;
      }
    },
    async set(hash, query) {
      if (!fits(query)) return;
      await redis.set(KEY_PREFIX + hash, query, 'EX', APQ_TTL_SECONDS).catch((err: unknown) => {
        log.warn({ err: (err as Error).message }, 'APQ registration not stored');
      });
    },
  };
}
