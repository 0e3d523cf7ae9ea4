import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeasedLimiter } from '../../src/edge/rate-lease.ts';
import { REDIS_URL } from '../helpers/pg.ts';

/**
 * Leases over the shared Redis budget (src/edge/rate-lease.ts): two LeasedLimiters over one Redis
 * prefix stand for two replicas. What must hold: never more than the budget in total, a quiet key
 * counted exactly, a busy key costing few Redis round trips, a spent key answered without Redis.
 */
describe('leased rate limits over Redis', () => {
  let redis: Redis;
  const prefix = `cms-test:lease:${randomUUID()}`;
  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    await new Promise((r) => redis.once('ready', r));
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  /** A Redis store for `points` per minute that counts how often it is asked. */
  function store(points: number, name: string) {
    const inner = new RateLimiterRedis({ storeClient: redis, points, duration: 60, keyPrefix: `${prefix}:${name}` });
    const counted = { calls: 0 };
    const consume = inner.consume.bind(inner);
    inner.consume = (key, n) => {
      counted.calls++;
      return consume(key, n);
    };
    return Object.assign(counted, { inner });
  }

  async function attempt(limiter: LeasedLimiter, key: string): Promise<boolean> {
    try {
      await limiter.consume(key);
      return true;
    } catch (err) {
      if (err instanceof RateLimiterRes) return false;
      throw err;
    }
  }

  it('two replicas under concurrent load never grant more than the budget, and waste little of it', async () => {
    const a = store(1000, 'burst');
    const b = store(1000, 'burst');
    const replicas = [new LeasedLimiter(a.inner, { points: 1000 }), new LeasedLimiter(b.inner, { points: 1000 })];
    let granted = 0;
    for (let round = 0; round < 30; round++) {
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => attempt(replicas[i % 2], 'k')));
      granted += results.filter(Boolean).length;
    }
    expect(granted).toBeLessThanOrEqual(1000);
    // Points leased but never used are lost for the window; near the limit leases shrink to one point.
    expect(granted).toBeGreaterThanOrEqual(950);
    expect(a.calls + b.calls).toBeLessThan(granted / 2);
  });

  it('counts a quiet key exactly across replicas', async () => {
    let now = 1_000_000;
    const clock = () => now;
    const a = store(10, 'quiet');
    const replicas = [new LeasedLimiter(a.inner, { points: 10, now: clock }), new LeasedLimiter(store(10, 'quiet').inner, { points: 10, now: clock })];
    const results: boolean[] = [];
    for (let i = 0; i < 12; i++) {
      // A second between requests: no lease is ever emptied fast enough to grow.
      now += 1000;
      results.push(await attempt(replicas[i % 2], 'k'));
    }
    expect(results).toEqual([...Array(10).fill(true), false, false]);
  });

  it('a busy key costs a handful of Redis round trips, and a spent key none', async () => {
    const s = store(1_000_000, 'busy');
    const limiter = new LeasedLimiter(s.inner, { points: 1_000_000 });
    for (let i = 0; i < 5000; i++) await limiter.consume('k');
    expect(s.calls).toBeLessThan(50);

    const spent = store(3, 'spent');
    const small = new LeasedLimiter(spent.inner, { points: 3 });
    const outcomes = [];
    for (let i = 0; i < 10; i++) outcomes.push(await attempt(small, 'k'));
    expect(outcomes).toEqual([true, true, true, ...Array(7).fill(false)]);
    // Three grants and the refusal that blocked the key; the six refusals after it never asked Redis.
    expect(spent.calls).toBe(4);
  });

  it('never hands one point to two waiting requests', async () => {
    const s = store(5, 'race');
    const limiter = new LeasedLimiter(s.inner, { points: 5 });
    const results = await Promise.all(Array.from({ length: 20 }, () => attempt(limiter, 'k')));
    expect(results.filter(Boolean)).toHaveLength(5);
  });
});
