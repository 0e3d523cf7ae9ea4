import { Writable } from 'node:stream';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/http/server.ts';
import { loadConfig } from '../../src/config.ts';
import type { AppServices } from '../../src/services.ts';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { world, posts } from '../helpers/world.ts';

let t: TestApp;
let p: TestProject;

beforeAll(async () => {
  ({ t, p } = await world({ app: { env: { RATE_LIMIT_PER_MINUTE: '50' } }, collections: [posts()] }));
});
afterAll(() => t.close());

const inject = (app: FastifyInstance, method: string, url: string, headers: Record<string, string> = {}, payload?: string) =>
  app.inject({ method: method as 'GET', url, headers, payload });

describe('request ids', () => {
  it('echoes a well-formed x-request-id on REST, GraphQL and 404 responses', async () => {
    for (const [method, url] of [['GET', '/api/posts'], ['POST', '/graphql'], ['GET', '/nowhere']] as const) {
      const res = await inject(t.app, method, url, { ...p.headers, 'x-request-id': 'trace-1.a:b_c', 'content-type': 'application/json' }, method === 'POST' ? JSON.stringify({ query: '{ project { uuid } }' }) : undefined);
      expect(res.headers['x-request-id']).toBe('trace-1.a:b_c');
    }
  });

  it('generates a UUID when the header is absent or malformed (too long, bad characters)', async () => {
    const absent = await inject(t.app, 'GET', '/healthz');
    expect(absent.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    for (const bad of ['x'.repeat(129), 'has space', 'quote"d', '']) {
      const res = await inject(t.app, 'GET', '/healthz', { 'x-request-id': bad });
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

describe('access log', () => {
  it('writes one info line per request with method, route pattern, status, duration, request id and project', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l));
        done();
      },
    });
    const log = pino({ level: 'info' }, sink);
    const app = await buildServer({ ...t.services, log, config: { ...t.services.config, LOG_LEVEL: 'info' } } as AppServices);
    try {
      const res = await inject(app, 'GET', '/api/posts?where[title][eq]=secret', { ...p.headers, 'x-request-id': 'log-me' });
      expect(res.statusCode).toBe(200);
      await inject(app, 'GET', '/missing');
      // Hostile header values never break the line (the sink parses every line as JSON).
      await inject(app, 'GET', '/api/posts', { 'project-id': '"},{"level":60', authorization: p.headers.authorization, 'x-request-id': 'a"b\\c\nd' });
      await new Promise((r) => setImmediate(r));
      const access = lines.filter((l) => l.log === 'access');
      expect(access).toHaveLength(3);
      expect(access[2]).toMatchObject({ level: 30, route: '/api/:collection', status: 400 });
      expect(access[2].project).toBeUndefined();
      expect(access[2].reqId).toMatch(/^[0-9a-f-]{36}$/);
      expect(typeof access[2].time).toBe('number');
      expect(access[0]).toMatchObject({ level: 30, method: 'GET', route: '/api/:collection', status: 200, reqId: 'log-me', project: p.uuid });
      expect(typeof access[0].ms).toBe('number');
      expect(JSON.stringify(access[0])).not.toContain('secret');
      expect(access[1]).toMatchObject({ route: '(unmatched)', status: 404 });
      // Fastify's own "incoming request" / "request completed" lines are gone.
      expect(lines.filter((l) => l.msg === 'incoming request' || l.msg === 'request completed')).toHaveLength(0);
    } finally {
      await app.close();
    }
  });
});

describe('HTTP details', () => {
  it('401 carries WWW-Authenticate: Bearer', async () => {
    const res = await inject(t.app, 'GET', '/api/posts', { 'project-id': p.uuid });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    const gql = await inject(t.app, 'POST', '/graphql', { 'project-id': p.uuid, authorization: 'Bearer nope', 'content-type': 'application/json' }, JSON.stringify({ query: '{ project { uuid } }' }));
    expect(gql.statusCode).toBe(401);
    expect(gql.headers['www-authenticate']).toBe('Bearer');
  });

  it('a known path with a wrong method answers 405 with Allow and a JSON message; unknown paths stay 404', async () => {
    const res = await inject(t.app, 'PUT', '/api/posts', p.headers);
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
    expect(res.json().message).toMatch(/PUT.*not allowed.*GET, HEAD, POST/);
    const item = await inject(t.app, 'POST', '/api/posts/00000000-0000-4000-8000-000000000000', p.headers);
    expect(item.statusCode).toBe(405);
    expect(item.headers.allow).toContain('PATCH');
    const missing = await inject(t.app, 'PUT', '/no/such/path');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ message: 'Not found.' });
  });

  it('a bare OPTIONS on a known path answers 204 with Allow', async () => {
    const res = await inject(t.app, 'OPTIONS', '/api/posts');
    expect(res.statusCode).toBe(204);
    expect(res.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
  });

  it('a body with an unsupported content type answers 415 with a JSON message', async () => {
    const res = await inject(t.app, 'POST', '/api/posts', { ...p.headers, 'content-type': 'text/csv' }, 'title\nx');
    expect(res.statusCode).toBe(415);
    expect(res.json().message).toEqual(expect.any(String));
  });

  it('successful and 429 responses carry RateLimit-Limit/-Remaining/-Reset and RateLimit-Policy', async () => {
    const q = await t.project();
    const first = await inject(t.app, 'GET', '/api/posts', q.headers);
    expect(first.headers['ratelimit-limit']).toBe('50');
    expect(first.headers['ratelimit-remaining']).toBe('49');
    expect(Number(first.headers['ratelimit-reset'])).toBeGreaterThan(0);
    expect(Number(first.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
    expect(first.headers['ratelimit-policy']).toBe('50;w=60');
    const second = await inject(t.app, 'GET', '/api/posts', q.headers);
    expect(second.headers['ratelimit-remaining']).toBe('48');
    let last = second;
    for (let i = 0; i < 49 && last.statusCode !== 429; i++) last = await inject(t.app, 'GET', '/api/posts', q.headers);
    expect(last.statusCode).toBe(429);
    expect(last.headers['ratelimit-remaining']).toBe('0');
    expect(last.headers['ratelimit-limit']).toBe('50');
    expect(Number(last.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // GraphQL draws on the same budget and reports it the same way.
    const gql = await inject(t.app, 'POST', '/graphql', { ...p.headers, 'content-type': 'application/json' }, JSON.stringify({ query: '{ project { uuid } }' }));
    expect(gql.headers['ratelimit-limit']).toBe('50');
  });
});

describe('CORS', () => {
  async function withOrigins(origins: string[], fn: (app: FastifyInstance) => Promise<void>) {
    const app = await buildServer({ ...t.services, config: { ...t.services.config, CORS_ORIGINS: origins } } as AppServices);
    try {
      await fn(app);
    } finally {
      await app.close();
    }
  }
  const preflight = (app: FastifyInstance, url: string, origin: string) =>
    inject(app, 'OPTIONS', url, { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'project-id, authorization, content-type' });

  it('default (CORS_ORIGINS empty): no cross-origin access on REST or GraphQL, not even reflected credentials', async () => {
    const res = await inject(t.app, 'GET', '/api/posts', { ...p.headers, origin: 'https://evil.example' });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const gql = await inject(t.app, 'POST', '/graphql', { ...p.headers, origin: 'https://evil.example', 'content-type': 'application/json' }, JSON.stringify({ query: '{ project { uuid } }' }));
    expect(gql.statusCode).toBe(200);
    expect(gql.headers['access-control-allow-origin']).toBeUndefined();
    expect(gql.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('an allow-list answers preflights for REST and GraphQL, reflects only listed origins, exposes the API headers', async () => {
    await withOrigins(['https://app.example.com'], async (app) => {
      for (const url of ['/api/posts', '/graphql']) {
        const res = await preflight(app, url, 'https://app.example.com');
        expect(res.statusCode).toBe(204);
        expect(res.headers['access-control-allow-origin']).toBe('https://app.example.com');
        expect(res.headers['access-control-allow-credentials']).toBe('true');
        expect(String(res.headers['access-control-allow-headers'])).toMatch(/project-id.*authorization.*content-type.*if-none-match.*x-request-id/);
      }
      const get = await inject(app, 'GET', '/api/posts', { ...p.headers, origin: 'https://app.example.com' });
      expect(get.headers['access-control-allow-origin']).toBe('https://app.example.com');
      expect(String(get.headers['access-control-expose-headers'])).toMatch(/etag.*ratelimit-limit.*ratelimit-remaining.*ratelimit-reset.*retry-after.*x-request-id/);

      const other = await preflight(app, '/api/posts', 'https://evil.example');
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
      expect(other.headers['access-control-allow-credentials']).toBeUndefined();
      const otherGql = await inject(app, 'POST', '/graphql', { ...p.headers, origin: 'https://evil.example', 'content-type': 'application/json' }, JSON.stringify({ query: '{ project { uuid } }' }));
      expect(otherGql.headers['access-control-allow-origin']).toBeUndefined();
      expect(otherGql.headers['access-control-allow-credentials']).toBeUndefined();
    });
  });

  it('a preflight from an origin not on the list answers 204 without CORS headers on /graphql as on REST', async () => {
    await withOrigins(['https://app.example.com'], async (app) => {
      for (const url of ['/api/posts', '/graphql']) {
        const res = await preflight(app, url, 'https://evil.example');
        expect(res.statusCode, url).toBe(204);
        expect(res.headers['access-control-allow-origin'], url).toBeUndefined();
        expect(String(res.headers.allow), url).toContain('POST');
      }
    });
    // With CORS off altogether too.
    for (const url of ['/api/posts', '/graphql']) {
      const res = await preflight(t.app, url, 'https://evil.example');
      expect(res.statusCode, url).toBe(204);
      expect(res.headers['access-control-allow-origin'], url).toBeUndefined();
    }
  });

  it('tracing headers are allowed by default, and CORS_ALLOW_HEADERS sets which', async () => {
    const ask = (app: FastifyInstance, url: string) =>
      inject(app, 'OPTIONS', url, { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, traceparent, baggage, sentry-trace' });
    await withOrigins(['https://app.example.com'], async (app) => {
      for (const url of ['/api/posts', '/graphql']) {
        const allowed = String((await ask(app, url)).headers['access-control-allow-headers']).split(/,\s*/);
        expect(allowed).toEqual(expect.arrayContaining(['authorization', 'traceparent', 'tracestate', 'baggage', 'sentry-trace', 'last-event-id']));
      }
    });
    const config = { ...t.services.config, CORS_ORIGINS: ['https://app.example.com'], CORS_ALLOW_HEADERS: loadConfig({ CORS_ALLOW_HEADERS: 'X-Client-Version' }).CORS_ALLOW_HEADERS };
    const app = await buildServer({ ...t.services, config } as AppServices);
    try {
      const allowed = String((await ask(app, '/graphql')).headers['access-control-allow-headers']).split(/,\s*/);
      expect(allowed).toContain('x-client-version');
      expect(allowed).toContain('project-id');
      expect(allowed).not.toContain('traceparent');
    } finally {
      await app.close();
    }
    expect(() => loadConfig({ CORS_ALLOW_HEADERS: 'traceparent, bad header' })).toThrow(/CORS_ALLOW_HEADERS/);
  });

  it('CORS_ORIGINS=* allows any origin without credentials', async () => {
    await withOrigins(['*'], async (app) => {
      const res = await preflight(app, '/api/posts', 'https://anyone.example');
      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    });
  });
});

describe('compression', () => {
  it('compresses large responses (openapi.json, introspection) with br or gzip', async () => {
    const openapi = await inject(t.app, 'GET', '/api/openapi.json', { 'accept-encoding': 'br, gzip' });
    expect(openapi.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(openapi.rawPayload).toString()).openapi).toMatch(/^3\./);
    const gz = await inject(t.app, 'GET', '/api/openapi.json', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).length).toBeGreaterThan(1024);

    const introspection = JSON.stringify({ query: '{ __schema { types { name fields { name } } } }' });
    const gql = await inject(t.app, 'POST', '/graphql', { ...p.headers, 'content-type': 'application/json', 'accept-encoding': 'gzip' }, introspection);
    expect(gql.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gql.rawPayload).toString()).data.__schema.types.length).toBeGreaterThan(10);
  });

  it('small responses (a cached read, a small GraphQL result) go out uncompressed', async () => {
    const small = await inject(t.app, 'GET', '/api/posts', { ...p.headers, 'accept-encoding': 'br, gzip' });
    expect(small.statusCode).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    const gql = await inject(t.app, 'POST', '/graphql', { ...p.headers, 'content-type': 'application/json', 'accept-encoding': 'br, gzip' }, JSON.stringify({ query: '{ project { uuid } }' }));
    expect(gql.statusCode).toBe(200);
    expect(gql.headers['content-encoding']).toBeUndefined();
    expect(gql.json().data.project.uuid).toBe(p.uuid);
  });

  it('server-sent events (GraphQL over text/event-stream) are neither compressed nor buffered', async () => {
    const query = JSON.stringify({ query: '{ __schema { types { name fields { name } } } }' });
    const res = await inject(t.app, 'POST', '/graphql', { ...p.headers, 'content-type': 'application/json', accept: 'text/event-stream', 'accept-encoding': 'br, gzip' }, query);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    // Yoga marks event streams `Content-Encoding: none` so that no proxy buffers them either.
    expect(['none', undefined]).toContain(res.headers['content-encoding']);
    expect(res.body).toMatch(/^event: next\ndata: \{"data":\{"__schema"/m);
  });
});
