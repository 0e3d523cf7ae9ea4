import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/http/server.ts';
import { createRateLimiter } from '../../src/edge/rate-limit.ts';
import type { AppServices } from '../../src/services.ts';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { REDIS_URL } from '../helpers/pg.ts';

const get = (app: FastifyInstance, url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });

describe('health endpoints', () => {
  it('/healthz is 200 without auth; /readyz checks the database (and Redis when configured)', async () => {
    const t = await startTestApp({ config: { REDIS_URL } });
    try {
      await t.services.redis!.ping().catch(() => new Promise((r) => t.services.redis!.once('ready', r)));
      expect((await get(t.app, '/healthz')).json()).toEqual({ status: 'ok' });
      const ready = await get(t.app, '/readyz');
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'ok' } });

      // Same services, but a database that no longer answers (readiness asks on its own connection: ping).
      const refused = () => Promise.reject(new Error('connection refused'));
      const broken = { ...t.services.database, query: refused, ping: refused };
      const app = await buildServer({ ...t.services, database: broken } as AppServices);
      const down = await get(app, '/readyz');
      expect(down.statusCode).toBe(503);
      expect(down.json()).toEqual({ status: 'unavailable', checks: { database: 'down', redis: 'ok' } });
      await app.close();
    } finally {
      await t.close();
    }
  });

  it('/readyz stays 200 with redis "degraded" when the configured Redis is not reachable (requests still succeed)', async () => {
    const t = await startTestApp({ config: { REDIS_URL: 'redis://127.0.0.1:1' } });
    try {
      const res = await get(t.app, '/readyz');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'degraded' } });
      const p = await t.project();
      expect((await get(t.app, '/api', p.headers)).statusCode).toBe(200);
      expect((await get(t.app, '/healthz')).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('/readyz without Redis configured checks only the database (embedded mode)', async () => {
    const t = await startTestApp({ embedded: true });
    try {
      const res = await get(t.app, '/readyz');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok', checks: { database: 'ok' } });
    } finally {
      await t.close();
    }
  }, 120_000);
});

describe('rate limiting without Redis (per process, per token)', () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
    p = await t.project();
  });
  afterAll(() => t.close());

  it('answers 429 with Retry-After once a token spends its budget; other tokens are unaffected', async () => {
    for (let i = 0; i < 3; i++) expect((await get(t.app, '/api', p.headers)).statusCode).toBe(200);
    const limited = await get(t.app, '/api', p.headers);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ message: 'Too Many Attempts.' });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // GraphQL draws from the same budget and reports the same class.
    const gql = await t.graphql('{ project { uuid } }', {}, p.headers);
    expect(gql.status).toBe(429);
    expect(gql.body.errors[0].extensions.code).toBe('RATE_LIMITED');

    const other = await p.tokenWith('read');
    expect((await get(t.app, '/api', other)).statusCode).toBe(200);
    // Health checks are never limited.
    expect((await get(t.app, '/healthz')).statusCode).toBe(200);
  });
});

describe('requests whose credentials fail pay from their address budget', () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    // A tenth of RATE_LIMIT_PER_MINUTE: 3 a minute per address.
    t = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '30' } });
    p = await t.project();
  });
  afterAll(() => t.close());

  it('wrong tokens and unknown projects on REST, shared with GraphQL; valid tokens are unaffected', async () => {
    const wrong = { 'project-id': p.uuid, authorization: 'Bearer not-a-real-token' };
    expect((await get(t.app, '/api/content/posts', wrong)).statusCode).toBe(401);
    expect((await get(t.app, '/api', { 'project-id': '00000000-0000-4000-8000-000000000000', authorization: 'Bearer x' })).statusCode).toBe(400);
    expect((await t.graphql('{ project { uuid } }', {}, wrong)).status).toBe(401);
    const spent = await get(t.app, '/api/content/posts', wrong);
    expect(spent.statusCode).toBe(429);
    expect(Number(spent.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await get(t.app, '/api', p.headers)).statusCode).toBe(200);
  });
});

describe('rate limiting through Redis (shared by all app instances)', () => {
  let t: TestApp;
  let p: TestProject;
  const prefix = `cms-test:rl:${randomUUID()}`;
  const clients: Redis[] = [];
  const apps: FastifyInstance[] = [];

  async function instance(): Promise<FastifyInstance> {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    clients.push(redis);
    await new Promise((r) => redis.once('ready', r));
    const app = await buildServer({ ...t.services, redis, rateLimiter: createRateLimiter(4, redis, { keyPrefix: prefix }) });
    apps.push(app);
    return app;
  }

  beforeAll(async () => {
    t = await startTestApp();
    p = await t.project();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    const keys = await clients[0].keys(`${prefix}:*`);
    if (keys.length) await clients[0].del(...keys);
    for (const c of clients) c.disconnect();
    await t.close();
  });

  it('two instances share one budget per token', async () => {
    const [a, b] = [await instance(), await instance()];
    const statuses: number[] = [];
    for (const app of [a, b, a, b, a, b]) statuses.push((await get(app, '/api', p.headers)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    const limited = await get(b, '/api', p.headers);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The budget lives in Redis under this run's prefix.
    expect((await clients[0].keys(`${prefix}:*`)).length).toBeGreaterThan(0);
  });
});
