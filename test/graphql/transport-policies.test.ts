import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient, type Client } from 'graphql-sse';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { world, posts, authors, collection, field } from '../helpers/world.ts';
import { issueToken } from '../../src/auth/tokens.ts';
import { rateKeyOf } from '../../src/edge/pipeline/stages.ts';
import { answer, transports, type Case, type Headers } from './transports.ts';

/**
 * Every GraphQL policy against every transport (issue 27, "One policy for every GraphQL transport"):
 * the gate (src/graphql/plugins/request/gate.ts) refuses the same request with the same status and code whichever
 * road it takes, and lets the same request through on all of them.
 */

const RATE = 2000; // RATE_LIMIT_PER_MINUTE of this app; the address budget is a tenth of it
const MAX_DEPTH = 4;
const MAX_COMPLEXITY = 200;


interface Expected {
  status: number;
  code?: string;
}

interface Policy {
  name: string;
  /** Builds the case for one transport (fresh tokens and addresses where a budget is spent). */
  make(ip: string): Promise<Case>;
  expect: Expected;
  /** Where a transport answers differently (and why, in the policy's comment). */
  per?: Record<string, Expected>;
}

describe('one gate for every GraphQL transport', () => {
  let t: TestApp;
  let p: TestProject;
  let enforcing: TestProject;
  let reader: Headers;
  let base: string;
  const clients: Array<Client<true>> = [];
  const MANIFEST_QUERY = '{ posts(perPage: 1) { data { uuid } } }';
  const MANIFEST_SUBSCRIPTION = 'subscription Trusted { postChanged(state: draft) { uuid } }';
  const OTHER_QUERY = '{ posts(perPage: 2) { data { uuid } } }';
  const OTHER_SUBSCRIPTION = 'subscription Other { postChanged { uuid event } }';
  const READ = '{ posts(perPage: 1) { data { uuid } } }';
  const SUBSCRIBE = 'subscription { postChanged { uuid } }';
  let errorLog: ReturnType<typeof vi.spyOn>;
  let registrar: Headers; // a project that does not enforce: it registers the APQ hashes
  const TRANSPORTS = transports(() => registrar);

  beforeAll(async () => {
    const model = [collection('companies', [field.text('name')]), authors(field.relation('company', 'companies')), posts(field.relation('author', 'authors'))];
    const w = await world({
      app: { env: { RATE_LIMIT_PER_MINUTE: String(RATE), GRAPHQL_MAX_DEPTH: String(MAX_DEPTH), GRAPHQL_MAX_COMPLEXITY: String(MAX_COMPLEXITY), LIVE_POLL_MS: '200' } },
      project: { name: 'Open' },
      collections: model,
    });
    ({ t, p } = w);
    enforcing = await t.project({ name: 'Enforcing' });
    const registrarProject = await t.project({ name: 'Registrar' });
    for (const project of [enforcing, registrarProject]) for (const spec of model) await w.collection(spec, project);
    registrar = registrarProject.headers;
    reader = await p.tokenWith(['read']);
    const put = await t.request({
      method: 'PUT',
      url: '/api/project/trusted-documents',
      headers: enforcing.headers,
      body: { documents: [MANIFEST_QUERY, MANIFEST_SUBSCRIPTION], enforced: true },
    });
    expect(put.status).toBe(200);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    errorLog = vi.spyOn(t.services.log, 'error');
  }, 120_000);
  afterAll(async () => {
    for (const c of clients) c.dispose();
    errorLog.mockRestore();
    await t.close();
  });

  /** A fresh token of `project` whose budget this minute is spent. */
  async function spentToken(project: TestProject): Promise<Headers> {
    const issued = await issueToken(t.database.prisma, { projectUuid: project.uuid, abilities: ['*'], name: 'spent' });
    const key = rateKeyOf({ actor: { kind: 'token', tokenId: issued.id, name: 'spent', abilities: ['*'] }, project: { uuid: project.uuid } as never });
    for (let i = 0; i < RATE; i++) await t.services.rateLimiter.consume(key, 'default');
    return { 'project-id': project.uuid, authorization: `Bearer ${issued.token}` };
  }

  /** Spends the address budget of `ip` for this minute. */
  async function spendAddress(ip: string): Promise<void> {
    for (let i = 0; i < RATE / 10; i++) await t.services.rateLimiter.consume(`ip:${ip}`, 'anonymous');
  }

  const aliases = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: uuid`).join(' ');
  const directives = (n: number) => Array.from({ length: n }, () => '@include(if: true)').join(' ');
  const deep = '{ posts(perPage: 1) { data { author { company { name } } } } }';
  const deepSubscription = 'subscription { postChanged { entry { author { company { name } } } } }';

  const POLICIES: Policy[] = [
    {
      name: 'a manifest document on an enforcing project runs',
      make: async (ip) => ({ headers: enforcing.headers, query: MANIFEST_QUERY, subscription: MANIFEST_SUBSCRIPTION, ip, warm: enforcing.headers }),
      expect: { status: 200 },
      // The single-connection mode accepts the operation (202); its results go to the reserved stream.
      per: { 'subscription over /graphql/stream': { status: 202 } },
    },
    {
      name: 'missing credentials',
      make: async (ip) => ({ headers: {}, query: READ, subscription: SUBSCRIBE, ip, warm: p.headers }),
      expect: { status: 400, code: 'BAD_REQUEST' },
    },
    {
      name: 'bad credentials',
      make: async (ip) => ({ headers: { 'project-id': p.uuid, authorization: 'Bearer nope' }, query: READ, subscription: SUBSCRIBE, ip, warm: p.headers }),
      expect: { status: 401, code: 'UNAUTHENTICATED' },
    },
    {
      name: 'address budget spent (no valid credentials)',
      make: async (ip) => {
        await spendAddress(ip);
        return { headers: { 'project-id': p.uuid, authorization: 'Bearer nope' }, query: READ, subscription: SUBSCRIBE, ip, warm: p.headers };
      },
      expect: { status: 429, code: 'RATE_LIMITED' },
    },
    {
      name: 'token budget spent',
      make: async (ip) => ({ headers: await spentToken(p), query: READ, subscription: SUBSCRIBE, ip, warm: p.headers }),
      expect: { status: 429, code: 'RATE_LIMITED' },
    },
    {
      name: 'trusted documents enforced: a document outside the manifest',
      make: async (ip) => ({ headers: enforcing.headers, query: OTHER_QUERY, subscription: OTHER_SUBSCRIPTION, ip }),
      expect: { status: 403, code: 'TRUSTED_DOCUMENTS_ONLY' },
      // By hash, the document is one the manifest does not list (it was registered by another project).
      per: {
        'persisted query (APQ hash) on /graphql': { status: 404, code: 'PERSISTED_QUERY_NOT_FOUND' },
        'persisted query (APQ hash) on /graphql/stream': { status: 404, code: 'PERSISTED_QUERY_NOT_FOUND' },
      },
    },
    {
      name: 'trusted documents enforced: a caller without a token (introspection outside the manifest)',
      make: async (ip) => ({ headers: { 'project-id': enforcing.uuid }, query: '{ __schema { queryType { name } } }', ip }),
      expect: { status: 403, code: 'TRUSTED_DOCUMENTS_ONLY' },
      per: {
        // The stream runs nothing without credentials.
        'POST /graphql/stream': { status: 401, code: 'UNAUTHENTICATED' },
        'GET /graphql/stream': { status: 401, code: 'UNAUTHENTICATED' },
        'subscription over /graphql/stream': { status: 401, code: 'UNAUTHENTICATED' },
        'persisted query (APQ hash) on /graphql': { status: 404, code: 'PERSISTED_QUERY_NOT_FOUND' },
        'persisted query (APQ hash) on /graphql/stream': { status: 401, code: 'UNAUTHENTICATED' },
      },
    },
    {
      name: 'document limit: tokens',
      make: async (ip) => ({ headers: p.headers, query: `{ posts(perPage: 1) { data { ${'uuid '.repeat(5001)} } } }`, subscription: `subscription { postChanged { ${'uuid '.repeat(5001)} } }`, ip }),
      expect: { status: 400, code: 'QUERY_TOO_LONG' },
    },
    {
      name: 'document limit: nesting',
      make: async (ip) => ({ headers: p.headers, query: `{ posts(where: ${'['.repeat(250)}${']'.repeat(250)}) { total } }`, ip }),
      expect: { status: 400, code: 'QUERY_TOO_NESTED' },
    },
    {
      name: 'document limit: aliases',
      make: async (ip) => ({ headers: p.headers, query: `{ posts(perPage: 1) { data { ${aliases(40)} } } }`, subscription: `subscription { postChanged { ${aliases(40)} } }`, ip }),
      expect: { status: 400, code: 'QUERY_TOO_MANY_ALIASES' },
    },
    {
      name: 'document limit: directives',
      make: async (ip) => ({ headers: p.headers, query: `{ posts(perPage: 1) { data { uuid ${directives(60)} } } }`, subscription: `subscription { postChanged { uuid ${directives(60)} } }`, ip }),
      expect: { status: 400, code: 'QUERY_TOO_MANY_DIRECTIVES' },
    },
    {
      name: 'document limit: introspection',
      make: async (ip) => ({ headers: p.headers, query: '{ a: __schema { queryType { name } } b: __schema { queryType { name } } }', ip }),
      expect: { status: 400, code: 'QUERY_TOO_MUCH_INTROSPECTION' },
    },
    {
      name: 'document limit: depth',
      make: async (ip) => ({ headers: p.headers, query: deep, subscription: deepSubscription, ip }),
      expect: { status: 400, code: 'QUERY_TOO_DEEP' },
    },
    {
      name: 'document limit: cost',
      make: async (ip) => ({ headers: p.headers, query: '{ posts(perPage: 100) { data { uuid title } } }', ip }),
      expect: { status: 400, code: 'QUERY_TOO_COMPLEX' },
    },
    {
      name: 'syntax error',
      make: async (ip) => ({ headers: p.headers, query: '{ posts { data { uuid } ', subscription: 'subscription { postChanged { uuid ', ip }),
      expect: { status: 400, code: 'GRAPHQL_PARSE_FAILED' },
    },
    {
      name: 'abilities: a token without read',
      make: async (ip) => ({ headers: await p.tokenWith(['create']), query: READ, subscription: SUBSCRIBE, ip, warm: reader }),
      // `posts` is nullable: the answer has data ({ posts: null }), so 200 with the FORBIDDEN error, as
      // GraphQL over HTTP wants (docs/graphql.md). Opening a stream needs `read` itself: 403 up front.
      expect: { status: 200, code: 'FORBIDDEN' },
      per: { 'subscription over /graphql/stream': { status: 403, code: 'FORBIDDEN' } },
    },
  ];

  POLICIES.forEach((policy, row) => {
    describe(policy.name, () => {
      TRANSPORTS.forEach((transport, column) => {
        it(`on ${transport.name}`, async () => {
          errorLog.mockClear();
          const c = await policy.make(`10.27.${row}.${column + 1}`);
          const res = await transport.send(t, c);
          const expected = policy.per?.[transport.name] ?? policy.expect;
          expect({ status: res.status, code: res.code }, res.text.slice(0, 500)).toEqual({ status: expected.status, code: expected.code });
          // A refusal is never a cached answer; an allowed read on the early lane is.
          if (expected.code) expect(res.cached).toBe(false);
          else if (transport.name === 'cached answer') expect(res.cached).toBe(true);
          // Client errors are logged at debug, never at error (and a refusal is never a 500).
          expect(errorLog).not.toHaveBeenCalled();
        });
      });
    });
  });

  describe('subscriptions on an enforcing project, over a real connection', () => {
    const write = async (title: string) => {
      const r = await t.request({ method: 'POST', url: '/api/posts', headers: enforcing.headers, body: { data: { title } } });
      expect(r.status).toBe(201);
    };
    const until = async (ok: () => boolean) => {
      for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
    };

    it('single-connection mode: a manifest subscription receives live events, another is refused and receives none', async () => {
      const client = () => {
        const c = createClient({ singleConnection: true, url: `${base}/graphql/stream`, headers: { ...enforcing.headers }, retryAttempts: 0 });
        clients.push(c);
        return c;
      };
      const received: unknown[] = [];
      const refused = new Promise<unknown>((resolve) => {
        client().subscribe({ query: OTHER_SUBSCRIPTION }, { next: (r) => received.push(r), error: resolve, complete: () => resolve(null) });
      });
      expect(String(await refused)).toMatch(/403/);
      const events: unknown[] = [];
      // Operations the table left on reserved streams count too.
      const before = t.services.live.size;
      const stop = client().subscribe({ query: MANIFEST_SUBSCRIPTION }, { next: (r) => events.push(r), error: () => {}, complete: () => {} });
      await until(() => t.services.live.size > before);
      await write('Live');
      await until(() => events.length >= 1);
      expect(events[0]).toMatchObject({ data: { postChanged: { uuid: expect.any(String) } } });
      expect(received).toEqual([]);
      stop();
    });

    it('distinct mode on /graphql/stream and on /graphql: the same refusal, and no subscription made', async () => {
      const before = t.services.live.size;
      for (const url of ['/graphql/stream', '/graphql']) {
        const res = await fetch(`${base}${url}`, {
          method: 'POST',
          headers: { ...enforcing.headers, 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify({ query: OTHER_SUBSCRIPTION }),
        });
        // /graphql/stream answers JSON; Yoga's own SSE writer puts the error in an event (same status).
        const refused = answer({ statusCode: res.status, body: await res.text(), headers: {} });
        expect({ status: refused.status, code: refused.code }, url).toEqual({ status: 403, code: 'TRUSTED_DOCUMENTS_ONLY' });
      }
      expect(t.services.live.size).toBeLessThanOrEqual(before);
    });
  });
});
