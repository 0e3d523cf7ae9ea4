import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/http/server.ts';
import { serveMetrics } from '../../src/http/metrics.ts';
import { createRateLimiter } from '../../src/edge/rate-limit.ts';
import type { AppServices } from '../../src/services.ts';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { world, posts } from '../helpers/world.ts';

let t: TestApp;
let p: TestProject;

beforeAll(async () => {
  ({ t, p } = await world({ collections: [posts()] }));
});
afterAll(() => t.close());

/** The value of one sample line (`name{labels} value`) in a Prometheus exposition, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[3] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[4]);
  }
  return undefined;
}

const scrape = async (app: FastifyInstance, headers: Record<string, string> = {}) => {
  const res = await app.inject({ method: 'GET', url: '/metrics', headers });
  return { status: res.statusCode, text: res.body, type: res.headers['content-type'] };
};

describe('/metrics', () => {
  it('counts HTTP requests by route pattern and status with latency histograms, never by raw URL', async () => {
    await t.request({ method: 'GET', url: '/api/posts?where[title][eq]=private-value', headers: p.headers });
    await t.request({ method: 'GET', url: '/api/posts', headers: p.headers });
    await t.request({ method: 'GET', url: '/api/posts', headers: { 'project-id': p.uuid } });
    const { status, text, type } = await scrape(t.app);
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(text, 'cms_http_request_duration_seconds_count', { method: 'GET', route: '/api/:collection', status: '200' })).toBe(2);
    expect(sample(text, 'cms_http_request_duration_seconds_count', { route: '/api/:collection', status: '401' })).toBe(1);
    expect(sample(text, 'cms_http_request_duration_seconds_bucket', { route: '/api/:collection', status: '200', le: '+Inf' })).toBe(2);
    expect(text).not.toContain('private-value');
  });

  it('counts GraphQL operations by type and name', async () => {
    await t.graphql('query Probe { project { uuid } }', {}, p.headers);
    await t.graphql('query Probe { project { uuid } }', {}, p.headers);
    const { text } = await scrape(t.app);
    expect(sample(text, 'cms_graphql_operations_total', { operationType: 'query', operationName: 'Probe' })).toBe(2);
    expect(sample(text, 'cms_graphql_operation_duration_seconds_count', { operationType: 'query', operationName: 'Probe' })).toBe(2);
  });

  it('reports pool use, read-cache hits and misses, outbox backlog and age, webhook deliveries', async () => {
    await t.request({ method: 'POST', url: '/api/collections', headers: p.headers, body: { name: 'Notes', slug: 'notes', fields: [{ type: 'text', label: 'Text', name: 'text' }] } });
    for (let i = 0; i < 3; i++) await t.request({ method: 'GET', url: '/api/notes', headers: p.headers });
    const { text } = await scrape(t.app);
    expect(sample(text, 'cms_db_pool_connections', { state: 'max' })).toBe(5);
    expect(sample(text, 'cms_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'cms_read_cache_requests_total', { result: 'miss' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'cms_read_cache_requests_total', { result: 'hit' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'cms_read_cache_requests_total', { result: 'hit' })).toBe(t.services.readCache!.hits);

    // An undispatched outbox event and a failed attempt (nobody dispatches in this test app).
    await t.database.query(`INSERT INTO outbox_events (project_id, event, source, payload, created_at) VALUES ($1, 'entry.created', 'api', '{}', now() - interval '30 seconds')`, [p.id]);
    await t.database.query(
      `INSERT INTO webhook_logs (webhook_id, delivery_id, attempt, action, url, status, request, response, duration_ms) VALUES (1, gen_random_uuid(), 1, 'entry.created', 'https://x.example', '500', '{}', '{}', 120), (1, gen_random_uuid(), 1, 'entry.created', 'https://x.example', '204', '{}', '{}', 40)`,
    );
    await new Promise((r) => setTimeout(r, 1100)); // past the scrape memo
    const after = (await scrape(t.app)).text;
    expect(sample(after, 'cms_outbox_backlog')).toBe(1);
    expect(sample(after, 'cms_outbox_oldest_age_seconds')).toBeGreaterThanOrEqual(29);
    expect(sample(after, 'cms_webhook_attempts_5m', { outcome: 'http_error' })).toBe(1);
    expect(sample(after, 'cms_webhook_attempts_5m', { outcome: 'delivered' })).toBe(1);
    expect(sample(after, 'cms_webhook_attempt_duration_seconds_5m', { outcome: 'http_error', quantile: '0.5' })).toBeCloseTo(0.12);
    expect(sample(after, 'cms_webhook_deliveries_open', { status: 'pending' })).toBe(0);
  });

  it('METRICS_TOKEN: the scrape needs the bearer token', async () => {
    const app = await buildServer({ ...t.services, config: { ...t.services.config, METRICS_TOKEN: 's3cret' } } as AppServices);
    try {
      const denied = await scrape(app);
      expect(denied.status).toBe(401);
      expect(denied.text).not.toContain('cms_http');
      expect((await scrape(app, { authorization: 'Bearer wrong!' })).status).toBe(401);
      expect((await scrape(app, { authorization: 'Bearer s3cret' })).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('METRICS_TOKEN: wrong tokens draw from the address budget (429 with Retry-After once spent), on either listener', async () => {
    // RATE_LIMIT_PER_MINUTE 30: an address without valid credentials gets a tenth, 3 a minute.
    const services = { ...t.services, config: { ...t.services.config, METRICS_TOKEN: 's3cret' }, rateLimiter: createRateLimiter(30) } as AppServices;
    const app = await buildServer(services);
    try {
      for (let i = 0; i < 3; i++) expect((await scrape(app, { authorization: `Bearer guess-${i}` })).status).toBe(401);
      const spent = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer guess-3' } });
      expect(spent.statusCode).toBe(429);
      expect(Number(spent.headers['retry-after'])).toBeGreaterThan(0);
      expect((await scrape(app, { authorization: 'Bearer s3cret' })).status).toBe(200);
    } finally {
      await app.close();
    }
    const own = { ...services, rateLimiter: createRateLimiter(30) } as AppServices;
    const server = await serveMetrics(own, 0, '127.0.0.1');
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/metrics`;
      for (let i = 0; i < 3; i++) expect((await fetch(url, { headers: { authorization: `Bearer guess-${i}` } })).status).toBe(401);
      const spent = await fetch(url, { headers: { authorization: 'Bearer guess-3' } });
      expect(spent.status).toBe(429);
      expect(await spent.json()).toEqual({ message: 'Too Many Attempts.' });
      expect(Number(spent.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await fetch(url, { headers: { authorization: 'Bearer s3cret' } })).status).toBe(200);
    } finally {
      server.close();
    }
  });

  it('METRICS_PORT: served on its own listener, not on the API port', async () => {
    const services = { ...t.services, config: { ...t.services.config, METRICS_PORT: 1 } } as AppServices;
    const app = await buildServer(services);
    const server = await serveMetrics(services, 0, '127.0.0.1');
    try {
      expect((await scrape(app)).status).toBe(404);
      const port = (server.address() as { port: number }).port;
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('cms_http_request_duration_seconds');
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    } finally {
      server.close();
      await app.close();
    }
  });
});
