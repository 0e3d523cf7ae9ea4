import { isUtf8 } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Pipeline } from '../edge/pipeline/index.ts';
import { knownReadKey } from '../edge/read-cache/graphql-answers.ts';
import { regularMediaType } from '../edge/read-cache/graphql-request.ts';
import { requestIdOf } from './request-id.ts';
import { rateHeaders } from './response-headers.ts';
import { wouldCompress, type CachedReadOptions } from './cached-reads.ts';

/** Hands a request to Fastify (the server's request handler). */
export type HandOn = (req: IncomingMessage, res: ServerResponse) => void;

/** Takes a request, answering it or handing it on later; false leaves it to the caller untouched. */
export type EarlyPost = (req: IncomingMessage, res: ServerResponse, handOn: HandOn) => boolean;

/** Bodies larger than this are never a known read's: they go to Fastify unread. */
const MAX_BODY_BYTES = 16_384;

/** The body an early lane read before handing the request on, replayed to Fastify's body parser. */
const replays = new WeakMap<IncomingMessage, Buffer>();

/**
 * Gives Fastify's body parser the bytes the early GraphQL lane read before it handed a request on
 * (the socket's stream is spent by then); every other request's body is read from the socket.
 */
export function registerBodyReplay(app: FastifyInstance): void {
  app.addHook('preParsing', (req, _reply, payload, done) => {
    const body = replays.get(req.raw);
    if (body === undefined) return done(null, payload);
    replays.delete(req.raw);
    done(null, Readable.from([body], { objectMode: false }));
  });
}

const BODY_KEYS = new Set(['query', 'operationName', 'variables']);

/**
 * Answers a repeated published GraphQL POST from the read cache before Fastify sees the request, or
 * hands it to Fastify unchanged (its body replayed, registerBodyReplay). The cached published REST read
 * is answered at the same place (./cached-reads.ts); behind Fastify a cached GraphQL POST paid the
 * framework's request and reply objects, routing, its hooks and body parser, then the read cache
 * lane's promises (src/graphql/server/cached-answers.ts, which still answers everything this lane
 * hands on: GETs, persisted queries, projects that run only trusted documents).
 *
 * The pipeline's fast lane (src/edge/pipeline/index.ts), as strict as the full path by construction:
 * - only `POST /graphql` with a small JSON body (UTF-8, no content coding) whose keys are `query`,
 *   `operationName` and `variables`, and only a request shape an answer was stored for by the Yoga
 *   plugin (src/graphql/plugins/result/use-read-cache.ts) after it passed the guard, the gate and
 *   every document limit: the same project scope, schema revision, document, operation name and
 *   variables as sent (`knownReadKey`), so the request values are the ones the full path accepted;
 * - authenticated from the authentication cache the full path reads first (a replica that has to ask
 *   PostgreSQL hands the request on), a token holding `read`, in a project that does not restrict
 *   itself to trusted documents (that check needs the manifest: the full path makes it);
 * - the answer key computed from this request's own generations, so only an answer stored under
 *   today's generations is sent;
 * - one point from the token's rate budget, only from a lease this replica already holds;
 * - the headers the Fastify-side lane sends (`X-Cache: HIT`, `x-request-id`, `RateLimit-*`, the
 *   media type Yoga would answer with, the CORS plugin's `Vary: Origin`) and the same access line
 *   and histogram observation.
 * Anything else is handed on: other methods and paths, cross-origin requests, query strings, other
 * media types, codings, larger bodies, a body the client would get compressed, a draining server, a
 * miss.
 */
export function cachedGraphqlPostAnswerer(pipeline: Pipeline, opts: CachedReadOptions): EarlyPost | undefined {
  const cache = pipeline.readCache.graphql;
  if (!cache || !pipeline.services.authCache) return undefined;

  /** The answer for a body read whole, or false to hand the request on. */
  function answer(req: IncomingMessage, res: ServerResponse, body: Buffer, started: number): boolean {
    let params: unknown;
    // Bytes that are not UTF-8 would decode to U+FFFD here and could match a stored request that sent
    // U+FFFD itself: the full path refuses them (src/http/request-body.ts).
    if (!isUtf8(body)) return false;
    try {
      params = JSON.parse(body.toString('utf8'));
    } catch {
      return false;
    }
    if (typeof params !== 'object' || params === null || Array.isArray(params)) return false;
    const p = params as Record<string, unknown>;
    for (const key in p) if (!BODY_KEYS.has(key)) return false;
    const { query, operationName, variables } = p;
    if (typeof query !== 'string' || (operationName !== undefined && operationName !== null && typeof operationName !== 'string')) return false;
    const h = req.headers;
    const mediaType = regularMediaType(h.accept);
    if (!mediaType) return false;
    const projectHeader = h['project-id'] as string;
    const requestId = requestIdOf(req);
    const ctx = pipeline.fast.admit({ projectId: projectHeader, authorization: h.authorization, requestId, readAfter: h['read-after'] }, 'read');
    if (!ctx || ctx.trustedDocumentsEnforced !== false) return false;
    const key = knownReadKey(cache!, ctx, { query, operationName, variables });
    const hit = key === null ? undefined : cache!.answers.peek(key);
    if (!hit) return false;
    if (wouldCompress(h['accept-encoding'], hit.json, opts)) return false;
    const rate = pipeline.fast.budget(ctx);
    if (!rate) return false;
    cache!.answers.countHit();
    const headers: Record<string, string | number> = {
      'x-cache': 'HIT',
      'content-type': `${mediaType}; charset=utf-8`,
      'x-request-id': requestId,
      ...rateHeaders(rate),
      'content-length': Buffer.byteLength(hit.json),
    };
    if (opts.varyOrigin) headers.vary = 'Origin';
    res.writeHead(200, headers).end(hit.json);
    opts.observe?.({ method: 'POST', route: '/graphql', status: 200, ms: performance.now() - started, requestId, projectHeader });
    return true;
  }

  return (req, res, handOn) => {
    if (req.method !== 'POST' || (req.url !== '/graphql' && req.url !== '/graphql/') || opts.draining()) return false;
    const h = req.headers;
    if (typeof h['project-id'] !== 'string' || typeof h.authorization !== 'string') return false;
    if (h.origin !== undefined || h['transfer-encoding'] !== undefined || h['content-encoding'] !== undefined) return false;
    const length = Number(h['content-length']);
    if (!(length > 0 && length <= MAX_BODY_BYTES)) return false;
    const type = h['content-type'];
    if (type !== 'application/json' && type !== 'application/json; charset=utf-8') return false;
    const started = performance.now();
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
    };
    const onEnd = () => {
      req.off('data', onData);
      req.off('error', onError);
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received);
      if (received === length && answer(req, res, body, started)) return;
      replays.set(req, body);
      handOn(req, res);
    };
    // The client went away mid-body: nothing is left to answer.
    const onError = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      res.destroy();
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    return true;
  };
}
