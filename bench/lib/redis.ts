import { Redis } from 'ioredis';

/** Deletes the run's BullMQ keys (unique prefix), best effort. */
export async function cleanRedis(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } catch {
    /* best effort */
  } finally {
    redis.disconnect();
  }
}
