import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/http/server.ts';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { world, posts } from '../helpers/world.ts';
import { REDIS_URL } from '../helpers/pg.ts';
import { comparableHeaders, untilAnsweredEarly } from '../helpers/early-lanes.ts';

const LIST = 'query Posts($perPage: Int) { posts(perPage: $perPage) { data { uuid title } } }';

/**
 * Repeated cached GraphQL POST reads are answered before Fastify (src/http/cached-graphql-posts.ts).
 * Over real sockets (Fastify's inject would skip the server's request listener), counting the
 * requests that reached the router: the early answer carries the bytes and headers of the
 * router-side answer, and whatever the full path would decide otherwise reaches it with its body.
 */
describe('cached GraphQL POST reads answered before routing', () => {
  let t: TestApp;
  let p: TestProject;
  let app: FastifyInstance;
  let base: string;
  let routed = 0;

  beforeAll(async () => {
    ({ t, p } = await world({
      app: { env: { AUTH_CACHE_MS: '3600000', REDIS_URL, CORS_ORIGINS: 'https://app.example.com' } },
      project: { name: 'Early GraphQL posts' },
      via: 'api',
      collections: [posts()],
    }));
    await t.request({ method: 'POST', url: '/api/posts', headers: p.headers, body: { state: 'published', data: { title: 'One' } } });
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

  async function send(body: unknown, headers: Record<string, string> = p.headers, raw?: string) {
    const before = routed;
    const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw ?? JSON.stringify(body) });
    const text = await res.text();
    return { res, text, routed: routed > before };
  }
  const settled = (body: unknown, headers?: Record<string, string>) => untilAnsweredEarly(() => send(body, headers));

  it('answers a repeat with the bytes and headers of the router-side answer, for each media type', async () => {
    for (const [i, accept] of [undefined, 'application/graphql-response+json', 'application/json'].entries()) {
      const headers = { ...p.headers, ...(accept ? { accept } : {}) };
      const body = { query: LIST, variables: { perPage: 5 + i } };
      // A miss: read by the lane, then handed to the router with its body replayed.
      const first = await send(body, headers);
      expect(first.routed).toBe(true);
      expect(first.res.status).toBe(200);
      expect(JSON.parse(first.text).data.posts.data[0].title).toBe('One');
      const early = await settled(body, headers);
      expect(early.routed).toBe(false);
      expect(early.res.headers.get('x-cache')).toBe('HIT');
      // The same request the router answers from its own lane (a content type this lane leaves to it).
      const routedHit = await send(body, { ...headers, 'content-type': 'application/json; charset=UTF-8' });
      expect(routedHit.routed).toBe(true);
      expect(routedHit.res.headers.get('x-cache')).toBe('HIT');
      expect(early.text).toBe(routedHit.text);
      expect(comparableHeaders(early.res)).toEqual(comparableHeaders(routedHit.res));
      expect(early.res.headers.get('content-type')).toBe(`${accept ?? 'application/json'}; charset=utf-8`);
      expect(early.res.headers.get('vary')).toBe('Origin');
    }
    expect((await settled({ query: LIST, variables: { perPage: 5 } }, { ...p.headers, 'x-request-id': 'trace-gql' })).res.headers.get('x-request-id')).toBe('trace-gql');
  });

  it('takes one point of the rate budget per early answer', async () => {
    const body = { query: LIST, variables: { perPage: 4 } };
    await send(body);
    await settled(body);
    // Consecutive early answers (a lease refill goes through the router, which may count otherwise).
    let pairs = 0;
    let last: number | undefined;
    for (let i = 0; i < 10; i++) {
      const r = await send(body);
      const remaining = Number(r.res.headers.get('ratelimit-remaining'));
      if (!r.routed && last !== undefined) {
        expect(remaining).toBe(last - 1);
        pairs++;
      }
      last = r.routed ? undefined : remaining;
    }
    expect(pairs).toBeGreaterThan(0);
  });

  it('hands on what the router decides otherwise, with the body it was sent', async () => {
    const body = { query: LIST, variables: { perPage: 3 } };
    await send(body);
    await settled(body);
    // Abilities: a token without `read` gets the field refused, every time, from the full path.
    const writer = await p.tokenWith(['create']);
    for (let i = 0; i < 3; i++) {
      const r = await send(body, writer);
      expect(r.routed).toBe(true);
      expect(JSON.parse(r.text).errors[0].extensions.code).toBe('FORBIDDEN');
    }
    // Unknown token: 401 from the full path.
    const unknown = await send(body, { 'project-id': p.uuid, authorization: 'Bearer nope' });
    expect(unknown.routed).toBe(true);
    expect(unknown.res.status).toBe(401);
    // Cross-origin requests (CORS), bodies with other keys, other paths' shapes, malformed JSON.
    const cors = await send(body, { ...p.headers, origin: 'https://app.example.com' });
    expect(cors.routed).toBe(true);
    expect(cors.res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const extra = await send({ ...body, extensions: {} });
    expect(extra.routed).toBe(true);
    expect(extra.res.status).toBe(200);
    const broken = await send(undefined, p.headers, '{"query": ');
    expect(broken.routed).toBe(true);
    expect(broken.res.status).toBe(400);
  });

  it('refuses a revoked token within the change feed delay, never answering it early', async () => {
    const reader = await p.tokenWith(['read']);
    const body = { query: LIST, variables: { perPage: 2 } };
    await send(body, reader);
    expect((await settled(body, reader)).routed).toBe(false);
    const tokenId = (await t.database.prisma.apiToken.findFirst({ where: { name: 'test read' }, orderBy: { id: 'desc' } }))!.id;
    await t.database.prisma.apiToken.update({ where: { id: tokenId }, data: { revokedAt: new Date() } });
    let status = 200;
    for (const deadline = Date.now() + 5_000; status === 200 && Date.now() < deadline; ) {
      status = (await send(body, reader)).res.status;
      if (status === 200) await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe(401);
  });

  it('never answers early what a write changed', async () => {
    const body = { query: '{ posts(perPage: 50) { data { title } } }' };
    await send(body);
    expect((await settled(body)).routed).toBe(false);
    await t.request({ method: 'POST', url: '/api/posts', headers: p.headers, body: { state: 'published', data: { title: 'Fresh' } } });
    const after = await send(body);
    expect(after.res.headers.get('x-cache')).toBeNull();
    expect(after.text).toContain('Fresh');
  });

  // Last: its long entries make every later page of posts one the client would get compressed.
  it('leaves a body the client would get compressed (1 KiB and more) to the full path', async () => {
    for (let i = 0; i < 2; i++) await t.request({ method: 'POST', url: '/api/posts', headers: p.headers, body: { state: 'published', data: { title: 'x'.repeat(1500) } } });
    const long = { query: LIST, variables: { perPage: 10 } };
    await send(long);
    expect((await send(long)).res.headers.get('x-cache')).toBe('HIT');
    const gz = await send(long, { ...p.headers, 'accept-encoding': 'gzip' });
    expect(gz.routed).toBe(true);
    expect(gz.res.headers.get('content-encoding')).toBe('gzip');
  });
});
