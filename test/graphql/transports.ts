import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';

/**
 * The GraphQL transports of test/graphql/transport-policies.test.ts: each sends one case (headers, a
 * document as a query and as a subscription, a client address) its own way and reports the status,
 * the first error's code and whether the early lane answered.
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export type Headers = Record<string, string>;

export interface Answer {
  status: number;
  code?: string;
  cached: boolean;
  text: string;
}

/** What one policy sends: headers and a document, as a query and as a subscription. */
export interface Case {
  headers: Headers;
  query: string;
  subscription?: string;
  /** The client address (each case its own, so address budgets do not mix). */
  ip: string;
  /** Headers of a caller who may run the document: the cached-answer lane is warmed with them. */
  warm?: Headers;
}

export interface Transport {
  name: string;
  send(t: TestApp, c: Case): Promise<Answer>;
}


export function answer(res: { statusCode: number; body: string; headers: Record<string, unknown> }): Answer {
  let code: string | undefined;
  try {
    code = (JSON.parse(res.body) as { errors?: Array<{ extensions?: { code?: string } }> }).errors?.[0]?.extensions?.code;
  } catch {
    code = undefined; // an event stream
  }
  if (code === undefined && /^event: next\ndata: /m.test(res.body)) {
    const data = res.body.split('\n').find((l) => l.startsWith('data: {'));
    code = data ? (JSON.parse(data.slice(6)) as { errors?: Array<{ extensions?: { code?: string } }> }).errors?.[0]?.extensions?.code : undefined;
  }
  return { status: res.statusCode, code, cached: res.headers['x-cache'] === 'HIT', text: res.body };
}

const inject = async (t: TestApp, c: Case, opts: { method: 'GET' | 'POST' | 'PUT'; url: string; headers: Headers; body?: unknown }) =>
  answer(
    await t.app.inject({
      method: opts.method,
      url: opts.url,
      remoteAddress: c.ip,
      headers: opts.body !== undefined ? { 'content-type': 'application/json', ...opts.headers } : opts.headers,
      payload: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
    }),
  );

const RESPONSE_JSON = { accept: 'application/graphql-response+json' };
const STREAM = { accept: 'text/event-stream' };
const hashOnly = (doc: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(doc) } });
/** Registers `doc` as an automatic persisted query through `registrar`, a project that does not enforce trusted documents. */
const register = (t: TestApp, registrar: Headers, doc: string) =>
  inject(t, { headers: registrar, query: doc, ip: '10.255.255.254' }, { method: 'POST', url: '/graphql', headers: { ...registrar, ...RESPONSE_JSON }, body: { query: doc, extensions: hashOnly(doc) } });

/** Every road an operation can take to the gate. */
export const transports = (registrar: () => Headers): Transport[] => [
  { name: 'POST /graphql', send: (t, c) => inject(t, c, { method: 'POST', url: '/graphql', headers: { ...c.headers, ...RESPONSE_JSON }, body: { query: c.query } }) },
  { name: 'GET /graphql', send: (t, c) => inject(t, c, { method: 'GET', url: `/graphql?query=${encodeURIComponent(c.query)}`, headers: { ...c.headers, ...RESPONSE_JSON } }) },
  { name: 'POST /graphql/stream', send: (t, c) => inject(t, c, { method: 'POST', url: '/graphql/stream', headers: { ...c.headers, ...STREAM }, body: { query: c.query } }) },
  { name: 'GET /graphql/stream', send: (t, c) => inject(t, c, { method: 'GET', url: `/graphql/stream?query=${encodeURIComponent(c.query)}`, headers: { ...c.headers, ...STREAM } }) },
  {
    // graphql-sse's single-connection mode: reserve a stream, then send the operation on it.
    name: 'subscription over /graphql/stream',
    async send(t, c) {
      const reserved = await inject(t, c, { method: 'PUT', url: '/graphql/stream', headers: c.headers });
      if (reserved.status !== 201) return reserved;
      const token = reserved.text;
      return inject(t, c, {
        method: 'POST',
        url: '/graphql/stream',
        headers: { ...c.headers, 'x-graphql-event-stream-token': token, accept: 'application/json' },
        body: { query: c.subscription ?? c.query, extensions: { operationId: '1' } },
      });
    },
  },
  {
    name: 'persisted query (APQ hash) on /graphql',
    async send(t, c) {
      await register(t, registrar(), c.query);
      return inject(t, c, { method: 'POST', url: '/graphql', headers: { ...c.headers, ...RESPONSE_JSON }, body: { extensions: hashOnly(c.query) } });
    },
  },
  {
    name: 'persisted query (APQ hash) on /graphql/stream',
    async send(t, c) {
      await register(t, registrar(), c.query);
      return inject(t, c, { method: 'GET', url: `/graphql/stream?extensions=${encodeURIComponent(JSON.stringify(hashOnly(c.query)))}`, headers: { ...c.headers, ...STREAM } });
    },
  },
  {
    // The early lane answers repeats before Yoga: warmed by a caller who may run the document, then
    // asked by the case's caller.
    name: 'cached answer',
    async send(t, c) {
      const request = (headers: Headers, ip = c.ip) =>
        inject(t, { ...c, ip }, { method: 'POST', url: '/graphql', headers: { ...headers, ...RESPONSE_JSON }, body: { query: c.query } });
      if (c.warm) {
        await request(c.warm, '10.255.255.253');
        expect((await request(c.warm, '10.255.255.253')).cached, 'the warmed answer is cached').toBe(true);
      }
      return request(c.headers);
    },
  },
];
