import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/http/server.ts';
import type { AppServices } from '../../src/services.ts';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { world, posts } from '../helpers/world.ts';
import { REDIS_URL } from '../helpers/pg.ts';
import { comparableHeaders, untilAnsweredEarly } from '../helpers/early-lanes.ts';

/**
 * Repeated cached published REST reads are answered before Fastify routes them
 * (src/http/cached-reads.ts). Over real sockets (Fastify's inject would skip the server's request
 * listener), with a counter of the requests that reached the router: the early answer must carry the
 * same body and headers as the full path, and everything that the full path would decide otherwise
 * (abilities, revocation, writes, CORS, compression, conditional requests) must still be decided there.
 */
describe('published REST reads answered before routing', () => {
  let t: TestApp;
  let p: TestProject;
  let app: FastifyInstance;
  let base: string;
  let routed = 0;
  let uuid: string;

  beforeAll(async () => {
    // As in production: the authentication cache on, rate budgets leased from Redis.
    ({ t, p } = await world({
      app: { env: { AUTH_CACHE_MS: '3600000', REDIS_URL, CORS_ORIGINS: 'https://app.example.com' } },
      project: { name: 'Early answers' },
      via: 'api',
      collections: [posts()],
    }));
    const created = await t.request({ method: 'POST', url: '/api/posts', headers: p.headers, body: { state: 'published', data: { title: 'One' } } });
    uuid = (created.body as { uuid: string }).uuid;
    app = await buildServer({ ...t.services });
    app.addHook('onRequest', (_req, _reply, done) => {
      routed++;
      done();
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  const get = (url: string, headers: Record<string, string> = p.headers) => fetch(`${base}${url}`, { headers });
  /** Whether the request reached the router. */
  async function viaRouter(url: string, headers?: Record<string, string>): Promise<{ res: Response; body: string; routed: boolean }> {
    const before = routed;
    const res = await get(url, headers);
    const body = await res.text();
    return { res, body, routed: routed > before };
  }
  const settled = (url: string, headers?: Record<string, string>) => untilAnsweredEarly(() => viaRouter(url, headers));

  it('answers a repeat with the body and headers the full path sends for the same cached read', async () => {
    const url = `/api/posts/${uuid}`;
    const first = await viaRouter(url);
    expect(first.res.status).toBe(200);
    expect(first.routed).toBe(true);
    const early = await settled(url);
    expect(early.routed).toBe(false);
    expect(early.res.status).toBe(200);
    expect(early.res.headers.get('x-cache')).toBe('HIT');
    // The same read through the router: a URL the early path has not seen, same key (`?&` parses to no
    // query). Not a bare `?`: fetch sends an empty query as no query at all, the very URL seen above.
    const full = await viaRouter(`${url}?&`);
    expect(full.routed).toBe(true);
    expect(full.res.headers.get('x-cache')).toBe('HIT');
    expect(early.body).toBe(full.body);
    expect(comparableHeaders(early.res)).toEqual(comparableHeaders(full.res));
    expect(early.res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(early.res.headers.get('ratelimit-remaining'))).toBeGreaterThan(0);
    // A caller's request id is echoed, as by the full path.
    expect((await get(url, { ...p.headers, 'x-request-id': 'trace-early' })).headers.get('x-request-id')).toBe('trace-early');
  });

  it('answers 304 to the tag, and leaves HEAD, cross-origin and compressible requests to the router', async () => {
    const url = `/api/posts/${uuid}?timestamps=true`;
    const first = await viaRouter(url);
    const tag = first.res.headers.get('etag')!;
    await settled(url);
    const notModified = await settled(url, { ...p.headers, 'if-none-match': tag });
    expect(notModified.routed).toBe(false);
    expect(notModified.res.status).toBe(304);
    expect(notModified.body).toBe('');
    expect(notModified.res.headers.get('etag')).toBe(tag);

    const head = await fetch(`${base}${url}`, { method: 'HEAD', headers: p.headers });
    expect(head.status).toBe(200);
    const cors = await viaRouter(url, { ...p.headers, origin: 'https://app.example.com' });
    expect(cors.routed).toBe(true);
    expect(cors.res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    // A body above the compression threshold (1 KiB): only the full path compresses.
    const long = await t.request({ method: 'POST', url: '/api/posts', headers: p.headers, body: { state: 'published', data: { title: 'x'.repeat(3000) } } });
    const longUrl = `/api/posts/${(long.body as { uuid: string }).uuid}`;
    for (let i = 0; i < 3; i++) {
      const gz = await viaRouter(longUrl, { ...p.headers, 'accept-encoding': 'gzip' });
      expect(gz.routed).toBe(true);
      expect(gz.res.headers.get('content-encoding')).toBe('gzip');
    }
  });

  it('never answers what the full path would refuse or answer differently: abilities, revocation, writes', async () => {
    const url = `/api/posts/${uuid}`;
    await settled(url);
    // A token without `read`: 403 from the router, every time.
    const writer = await p.tokenWith(['create']);
    for (let i = 0; i < 3; i++) {
      const r = await viaRouter(url, writer);
      expect(r.res.status).toBe(403);
    }
    // A write: the next read shows it (this replica forgets the project's cached authentication).
    const updated = await t.request({ method: 'PATCH', url: `/api/posts/${uuid}`, headers: p.headers, body: { data: { title: 'Two' } } });
    expect(updated.status).toBe(200);
    await fetch(`${base}/api/posts/${uuid}/publish`, { method: 'POST', headers: p.headers });
    const fresh = await viaRouter(url);
    expect(JSON.parse(fresh.body).fields?.title ?? JSON.parse(fresh.body).title).toBe('Two');
    // Revoking the token: its reads are refused within the change feed's delay, never answered early.
    const reader = await p.tokenWith(['read']);
    expect((await settled(url, reader)).routed).toBe(false);
    const tokenId = (await t.database.prisma.apiToken.findFirst({ where: { name: 'test read' }, orderBy: { id: 'desc' } }))!.id;
    await t.database.prisma.apiToken.update({ where: { id: tokenId }, data: { revokedAt: new Date() } });
    let status = 200;
    for (const deadline = Date.now() + 5_000; status === 200 && Date.now() < deadline; ) {
      status = (await get(url, reader)).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe(401);
  });

  it('writes the access line of an early answer as the router does', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    const logged = await buildServer({ ...t.services, log: pino({ level: 'info' }, sink), config: { ...t.services.config, LOG_LEVEL: 'info' } } as AppServices);
    let routedHere = 0;
    logged.addHook('onRequest', (_req, _reply, done) => {
      routedHere++;
      done();
    });
    try {
      const at = await logged.listen({ host: '127.0.0.1', port: 0 });
      const url = `${at}/api/posts/${uuid}?locale=en`;
      let early = 0;
      for (let i = 0; i < 20; i++) {
        const before = routedHere;
        expect((await fetch(url, { headers: { ...p.headers, 'x-request-id': `line-${i}` } })).status).toBe(200);
        if (routedHere === before) early++;
      }
      expect(early).toBeGreaterThan(0);
      await new Promise((r) => setImmediate(r));
      const access = lines.filter((l) => l.log === 'access');
      expect(access.map((l) => l.reqId)).toEqual(Array.from({ length: 20 }, (_, i) => `line-${i}`));
      for (const l of access) expect(l).toMatchObject({ level: 30, method: 'GET', route: '/api/:collection/:uuid', status: 200, project: p.uuid });
    } finally {
      await logged.close();
    }
  });

  it('counts early answers in the HTTP histogram like routed ones', async () => {
    const url = `/api/posts/${uuid}?locale=en`;
    await viaRouter(url);
    await settled(url);
    const metrics = async () => {
      const text = await (await fetch(`${base}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('cms_http_request_duration_seconds_count{') && l.includes('route="/api/:collection/:uuid"') && l.includes('status="200"'));
      return Number(line?.split(' ').pop() ?? 0);
    };
    const before = await metrics();
    let early = 0;
    for (let i = 0; i < 20; i++) if (!(await viaRouter(url)).routed) early++;
    expect(early).toBeGreaterThan(0);
    expect(await metrics()).toBe(before + 20);
  });
});
