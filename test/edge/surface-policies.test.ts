import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/http/server.ts';
import { issueToken, revokeToken } from '../../src/auth/tokens.ts';
import { rateKeyOf } from '../../src/edge/pipeline/stages.ts';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { createCollection } from '../helpers/fixtures.ts';
import { REDIS_URL } from '../helpers/pg.ts';
import { answer, transports, type Answer, type Case, type Headers } from '../graphql/transports.ts';

/**
 * Every policy of the request pipeline (src/edge/pipeline/) that applies to both surfaces, against
 * every surface and transport: REST through the router, REST's early lane (src/http/cached-reads.ts),
 * and every GraphQL transport of test/graphql/transports.ts (POST and GET /graphql, both modes of
 * /graphql/stream, subscriptions, persisted queries, the early cached-answer lane). The policies only
 * GraphQL has (trusted documents, document limits) are test/graphql/transport-policies.test.ts.
 *
 * The pipeline is assembled once, so a policy answers the same on every road; where a surface shapes
 * the same decision differently (REST has no `extensions.code`; GraphQL answers a field's refusal with
 * 200 and the error), the row says so.
 */

const RATE = 2000; // RATE_LIMIT_PER_MINUTE of this app; the address budget is a tenth of it
const ADDRESS_BUDGET = RATE / 10;
// Address budgets live in the shared Redis for a minute: this run's addresses are its own.
const RUN = 100 + Math.floor(Math.random() * 100);

/** A case of test/graphql/transports.ts, with the REST URL that asks the same (the read by default). */
type SurfaceCase = Case & { restUrl?: string };

interface Expected {
  status: number;
  /** GraphQL's `extensions.code` (REST answers `{ message }` only). */
  code?: string;
}

/** One request of a policy, with what every surface answers (`per`: where one answers differently, and why). */
interface Step {
  c: SurfaceCase;
  expect: Expected;
  per?: Record<string, Expected>;
}

interface Policy {
  name: string;
  /** The steps, sent in order on one surface; `ip` is the surface's own address for this row. */
  make(ip: string): Promise<Step[]>;
}

interface Surface {
  name: string;
  /** The address a case of `row` uses on this surface. */
  ip(row: number, column: number): string;
  send(c: SurfaceCase): Promise<Answer & { early?: boolean }>;
}

const READ_QUERY = '{ posts(perPage: 1) { data { uuid } } }';
const SUBSCRIBE = 'subscription { postChanged { uuid } }';
const REST_READ = '/api/posts?perPage=1';
// GraphQL's answer to a field its token may not read: the field is null, the error beside it (docs/graphql.md).
const GRAPHQL_FIELD_REFUSED = { status: 200, code: 'FORBIDDEN' };

describe('one pipeline for every surface and transport', () => {
  let t: TestApp;
  let p: TestProject;
  let reader: Headers;
  let registrar: Headers;
  let early: FastifyInstance;
  let port: number;
  let routed = 0;
  let errorLog: ReturnType<typeof vi.spyOn>;

  beforeAll(async () => {
    // As in production: the authentication cache on, rate budgets leased from Redis (the early lane needs both).
    t = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: String(RATE), AUTH_CACHE_MS: '3600000', REDIS_URL, LIVE_POLL_MS: '200' } });
    p = await t.project({ name: 'Surfaces' });
    const other = await t.project({ name: 'Registrar' });
    for (const project of [p, other]) await createCollection(t.database.prisma, project.id, { slug: 'posts', fields: [{ name: 'title', type: 'text' }] });
    registrar = other.headers;
    reader = await p.tokenWith(['read']);
    const created = await t.request({ method: 'POST', url: '/api/posts', headers: p.headers, body: { state: 'published', data: { title: 'One' } } });
    expect(created.status).toBe(201);
    // The early lane sits in front of the router (src/http/server.ts): over real sockets, counting what reaches the router.
    early = await buildServer({ ...t.services });
    early.addHook('onRequest', (_req, _reply, done) => {
      routed++;
      done();
    });
    await early.listen({ host: '127.0.0.1', port: 0 });
    port = (early.server.address() as { port: number }).port;
    errorLog = vi.spyOn(t.services.log, 'error');
  }, 120_000);
  afterAll(async () => {
    errorLog?.mockRestore();
    await early?.close();
    await t?.close();
  });

  /** A GET over a real socket from `ip` (any 127/8 address is this host), and whether the router saw it. */
  function socketGet(url: string, headers: Headers, ip: string): Promise<Answer & { early: boolean }> {
    const before = routed;
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: url, headers, localAddress: ip }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ ...answer({ statusCode: res.statusCode ?? 0, body, headers: res.headers }), early: routed === before }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** A JSON POST of `body` to /graphql over a real socket from `ip`, and whether the router saw it. */
  function socketPost(body: unknown, headers: Headers, ip: string): Promise<Answer & { early: boolean }> {
    const before = routed;
    const payload = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, method: 'POST', path: '/graphql', headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }, localAddress: ip },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ ...answer({ statusCode: res.statusCode ?? 0, body: text, headers: res.headers }), early: routed === before }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  const restSurfaces: Surface[] = [
    {
      name: 'REST GET /api/posts',
      ip: (row, column) => `10.${RUN}.${row}.${column + 1}`,
      send: async (c) => answer(await t.app.inject({ method: 'GET', url: c.restUrl ?? REST_READ, headers: c.headers, remoteAddress: c.ip })),
    },
    {
      // Warmed by a caller who may read, as the GraphQL lane is: then the case's caller asks.
      name: 'REST early lane',
      ip: (row, column) => `127.${RUN}.${row}.${column + 1}`,
      async send(c) {
        const url = c.restUrl ?? REST_READ;
        if (c.warm) {
          for (const deadline = Date.now() + 10_000; ; ) {
            const warmed = await socketGet(url, c.warm, '127.255.255.253');
            if (warmed.early || Date.now() > deadline) break;
            await new Promise((r) => setTimeout(r, 50));
          }
        }
        return socketGet(url, c.headers, c.ip);
      },
    },
  ];
  const graphqlSurfaces: Surface[] = transports(() => registrar).map((transport) => ({
    name: `GraphQL ${transport.name}`,
    ip: (row, column) => `10.${RUN}.${row}.${column + 1}`,
    send: (c) => transport.send(t, c),
  }));
  // POST /graphql answered before the router (src/http/cached-graphql-posts.ts), warmed as the REST early lane is.
  const graphqlEarly: Surface = {
    name: 'GraphQL early POST lane',
    ip: (row, column) => `127.${RUN}.${row}.${column + 1}`,
    async send(c) {
      if (c.warm) {
        for (const deadline = Date.now() + 10_000; ; ) {
          const warmed = await socketPost({ query: c.query }, c.warm, '127.255.255.252');
          if (warmed.early || Date.now() > deadline) break;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      return socketPost({ query: c.query }, c.headers, c.ip);
    },
  };
  const SURFACES = [...restSurfaces, ...graphqlSurfaces, graphqlEarly];

  async function spentToken(): Promise<Headers> {
    const issued = await issueToken(t.database.prisma, { projectUuid: p.uuid, abilities: ['*'], name: 'spent' });
    const key = rateKeyOf({ actor: { kind: 'token', tokenId: issued.id, name: 'spent', abilities: ['*'] }, project: { uuid: p.uuid } as never });
    for (let i = 0; i < RATE; i++) await t.services.rateLimiter.consume(key, 'default');
    return { 'project-id': p.uuid, authorization: `Bearer ${issued.token}` };
  }
  /** Spends `points` of the address budget of `ip` this minute. */
  async function spendAddress(ip: string, points = ADDRESS_BUDGET): Promise<void> {
    for (let i = 0; i < points; i++) await t.services.rateLimiter.consume(`ip:${ip}`, 'anonymous');
  }
  const read = (headers: Headers, ip: string, extra: Partial<SurfaceCase> = {}): SurfaceCase => ({ headers, query: READ_QUERY, subscription: SUBSCRIBE, ip, warm: reader, ...extra });
  const bad = () => ({ 'project-id': p.uuid, authorization: 'Bearer nope' });

  const POLICIES: Policy[] = [
    {
      name: 'valid credentials holding read',
      make: async (ip) => [{ c: read(reader, ip), expect: { status: 200 }, per: { 'GraphQL subscription over /graphql/stream': { status: 202 } } }],
    },
    { name: 'credentials: missing', make: async (ip) => [{ c: read({}, ip), expect: { status: 400, code: 'BAD_REQUEST' } }] },
    { name: 'credentials: unknown project', make: async (ip) => [{ c: read({ 'project-id': '00000000-0000-4000-8000-000000000000', authorization: 'Bearer nope' }, ip), expect: { status: 400, code: 'BAD_REQUEST' } }] },
    { name: 'credentials: bad token', make: async (ip) => [{ c: read(bad(), ip), expect: { status: 401, code: 'UNAUTHENTICATED' } }] },
    {
      // API tokens do not expire (no lifetime: docs/auth.md); revocation is how one stops working.
      name: 'credentials: revoked token',
      make: async (ip) => {
        const issued = await issueToken(t.database.prisma, { projectUuid: p.uuid, abilities: ['*'], name: 'revoked' });
        await revokeToken(t.database.prisma, { projectUuid: p.uuid, token: String(issued.id) });
        return [{ c: read({ 'project-id': p.uuid, authorization: `Bearer ${issued.token}` }, ip), expect: { status: 401, code: 'UNAUTHENTICATED' } }];
      },
    },
    {
      // Refused credentials pay from the address's budget on every surface: the last point, then 429.
      name: 'credentials refused: charged to the address budget',
      make: async (ip) => {
        await spendAddress(ip, ADDRESS_BUDGET - 1);
        return [
          { c: read(bad(), ip), expect: { status: 401, code: 'UNAUTHENTICATED' } },
          { c: read(bad(), ip), expect: { status: 429, code: 'RATE_LIMITED' } },
        ];
      },
    },
    {
      name: 'address budget spent (no valid credentials)',
      make: async (ip) => {
        await spendAddress(ip);
        return [{ c: read(bad(), ip), expect: { status: 429, code: 'RATE_LIMITED' } }];
      },
    },
    { name: 'token budget spent', make: async (ip) => [{ c: read(await spentToken(), ip), expect: { status: 429, code: 'RATE_LIMITED' } }] },
    {
      // A token's own budget refusing is not a credential failure: the address keeps its last point.
      name: 'token budget spent: the address budget is not charged',
      make: async (ip) => {
        await spendAddress(ip, ADDRESS_BUDGET - 1);
        return [
          { c: read(await spentToken(), ip), expect: { status: 429, code: 'RATE_LIMITED' } },
          { c: read(bad(), ip), expect: { status: 401, code: 'UNAUTHENTICATED' } },
        ];
      },
    },
    {
      name: 'abilities: a token without read',
      make: async (ip) => [
        {
          c: read(await p.tokenWith(['create']), ip),
          expect: { status: 403 },
          per: Object.fromEntries(
            [...graphqlSurfaces, graphqlEarly].map((s) => [s.name, s.name === 'GraphQL subscription over /graphql/stream' ? { status: 403, code: 'FORBIDDEN' } : GRAPHQL_FIELD_REFUSED]),
          ),
        },
      ],
    },
    {
      // The guard runs before credentials on every road: a NUL in a REST parameter is a field value
      // (422), in a GraphQL document the request itself is malformed (400).
      name: 'input guard: a NUL character',
      make: async (ip) => [
        {
          c: read(reader, ip, { restUrl: '/api/posts?perPage=1&sort=%00', query: '{ posts(perPage: 1) { data { uuid } } } #\u0000', subscription: 'subscription { postChanged { uuid } } #\u0000', warm: undefined }),
          expect: { status: 400, code: 'BAD_REQUEST' },
          per: {
            'REST GET /api/posts': { status: 422 },
            'REST early lane': { status: 422 },
            // The guard refused the text when it was registered, so its hash names nothing.
            'GraphQL persisted query (APQ hash) on /graphql': { status: 404, code: 'PERSISTED_QUERY_NOT_FOUND' },
            'GraphQL persisted query (APQ hash) on /graphql/stream': { status: 404, code: 'PERSISTED_QUERY_NOT_FOUND' },
          },
        },
      ],
    },
  ];

  POLICIES.forEach((policy, row) => {
    describe(policy.name, () => {
      SURFACES.forEach((surface, column) => {
        it(`on ${surface.name}`, async () => {
          errorLog.mockClear();
          const steps = await policy.make(surface.ip(row, column));
          for (const [i, step] of steps.entries()) {
            const res = await surface.send(step.c);
            const expected = step.per?.[surface.name] ?? step.expect;
            const rest = surface.name.startsWith('REST');
            expect({ status: res.status, code: rest ? undefined : res.code }, `step ${i + 1}: ${res.text.slice(0, 300)}`).toEqual({ status: expected.status, code: rest ? undefined : expected.code });
            // A refusal is never a cached answer; an allowed read on an early lane is.
            if (expected.code || expected.status >= 400) expect(res.cached || res.early === true).toBe(false);
            else if (surface.name === 'REST early lane' || surface.name === 'GraphQL cached answer') expect(res.cached).toBe(true);
            else if (surface.name === 'GraphQL early POST lane') expect(res.early && res.cached).toBe(true);
          }
          expect(errorLog).not.toHaveBeenCalled();
        });
      });
    });
  });

  /**
   * The read cache and read-your-writes, on every surface that reads and after a write by either:
   * a repeat is answered from the cache (on the early lanes before the framework), and a write on
   * either surface invalidates both surfaces' answers, so the writer's next read shows its write.
   */
  describe('read cache: miss, hit, invalidation; read-your-writes', () => {
    const LIST = '{ posts(perPage: 50) { data { title } } }';
    const REST_LIST = '/api/posts?perPage=50';
    const readers: Array<{ name: string; read(ip: string): Promise<Answer & { early?: boolean }> }> = [
      { name: 'REST GET /api/posts', read: async (ip) => answer(await t.app.inject({ method: 'GET', url: REST_LIST, headers: p.headers, remoteAddress: ip })) },
      { name: 'REST early lane', read: (ip) => socketGet(REST_LIST, p.headers, ip) },
      {
        name: 'GraphQL POST /graphql',
        read: async (ip) =>
          answer(await t.app.inject({ method: 'POST', url: '/graphql', remoteAddress: ip, headers: { ...p.headers, 'content-type': 'application/json' }, payload: JSON.stringify({ query: LIST }) })),
      },
      { name: 'GraphQL early POST lane', read: (ip) => socketPost({ query: LIST }, p.headers, ip) },
      { name: 'GraphQL GET /graphql', read: async (ip) => answer(await t.app.inject({ method: 'GET', url: `/graphql?query=${encodeURIComponent(LIST)}`, remoteAddress: ip, headers: p.headers })) },
    ];
    const writers: Array<{ name: string; write(title: string): Promise<number> }> = [
      { name: 'REST POST /api/posts', write: async (title) => (await t.request({ method: 'POST', url: '/api/posts', headers: p.headers, body: { state: 'published', data: { title } } })).status },
      {
        name: 'GraphQL createPost',
        write: async (title) => {
          const res = await t.graphql(`mutation { createPost(data: { title: "${title}" }, state: published) { uuid } }`, undefined, p.headers);
          return res.body.errors ? 500 : res.status;
        },
      },
    ];
    /** Whether an answer came from the cache: `X-Cache: HIT`, or an early lane. */
    const fromCache = (res: Answer & { early?: boolean }) => res.cached || res.early === true;

    readers.forEach((reader, r) => {
      writers.forEach((writer, w) => {
        it(`${reader.name}, written by ${writer.name}`, async () => {
          const ip = reader.name.includes('early') ? `127.${RUN}.200.${r * 2 + w + 1}` : `10.${RUN}.200.${r * 2 + w + 1}`;
          const first = await reader.read(ip);
          expect(first.status, first.text.slice(0, 300)).toBe(200);
          // A repeat is a hit (the early lane needs this replica's lease and authentication cache first).
          let repeat = await reader.read(ip);
          for (const deadline = Date.now() + 10_000; !fromCache(repeat) && Date.now() < deadline; ) {
            await new Promise((resolve) => setTimeout(resolve, 50));
            repeat = await reader.read(ip);
          }
          expect(fromCache(repeat), 'a repeat is answered from the cache').toBe(true);
          expect(repeat.text).toBe(first.text);
          const title = `Written ${r}.${w}.${RUN}`;
          expect(await writer.write(title)).toBeLessThan(300);
          const after = await reader.read(ip);
          expect(after.status).toBe(200);
          expect(fromCache(after), 'the write invalidated the cached answer').toBe(false);
          expect(after.text, 'the writer reads its own write').toContain(title);
        });
      });
    });
  });
});
