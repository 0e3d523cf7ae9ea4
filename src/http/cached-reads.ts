import { performance } from 'node:perf_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { matchesIfNoneMatch } from '../edge/read-cache/etag.ts';
import { REST_VARY, edgeCacheable, edgeHeaders } from '../edge/cdn/headers.ts';
import type { Pipeline } from '../edge/pipeline/index.ts';
import { requestIdOf } from './request-id.ts';
import { rateHeaders } from './response-headers.ts';
import type { ResponseObserver } from './response-observers.ts';

export interface CachedReadOptions {
  /** The access log and the HTTP histogram, as Fastify's `onResponse` runs them. */
  observe?: ResponseObserver;
  /** COMPRESSION_MIN_BYTES: bodies from this size may be compressed, which only the full path does. */
  compressionMinBytes: number;
  /** Every response carries `Vary: Origin` (src/http/cors.ts). */
  varyOrigin: boolean;
  draining: () => boolean;
}

export type EarlyAnswer = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * Answers a repeated published REST read from the read cache before Fastify routes the request, or
 * returns false and leaves it to Fastify untouched. On the cheapest request there is, a cached
 * published read whose whole cost is a few dozen microseconds, the framework's per-request machinery
 * (request and reply objects, routing, the hook chain the operations plugins add) was most of the
 * cost (BENCHMARKS.md, "Cost of the operations plugins"); here the answer costs what the socket costs.
 * The GraphQL twin is src/graphql/server/cached-answers.ts.
 *
 * The pipeline's fast lane (src/edge/pipeline/index.ts), as strict as the full path by construction:
 * - only a URL the route itself answered as a published read on this replica (src/edge/read-cache/known-rest-reads.ts),
 *   so the routing, query parsing and input checks are the ones it passed;
 * - authenticated from the same authentication cache the full path reads first (a replica that has
 *   to ask PostgreSQL hands the request on), holding the route's ability;
 * - the cache key computed again as the route computes it, from this request's own generations, and
 *   only an answer the route stored under that key is sent, with the same tag and 304 rule;
 * - one point from the token's rate budget, taken only from a lease this replica already holds
 *   (anything that needs Redis, or would refuse, goes the full way, so nothing is charged twice);
 * - the same headers (`ETag`, `Cache-Control`, `X-Cache: HIT`, `x-request-id`, `RateLimit-*`, the
 *   CORS plugin's `Vary: Origin`) and
 *   the same access line and histogram observation.
 * Anything else hands the request on: other methods, cross-origin requests (CORS), bodies, a body
 * the client would get compressed, a draining server, a URL not seen, a miss.
 */
export function cachedReadAnswerer(pipeline: Pipeline, opts: CachedReadOptions): EarlyAnswer | undefined {
  const { rest: readCache, knownRest: knownRestReads } = pipeline.readCache;
  if (!readCache || !knownRestReads || !pipeline.services.authCache) return undefined;
  return (req, res) => {
    const started = performance.now();
    if (req.method !== 'GET' || opts.draining()) return false;
    const h = req.headers;
    const projectHeader = h['project-id'];
    if (typeof projectHeader !== 'string' || h.authorization === undefined) return false;
    if (h.origin !== undefined || h['content-length'] !== undefined || h['transfer-encoding'] !== undefined) return false;
    const shape = knownRestReads.find(projectHeader, req.url ?? '');
    if (!shape) return false;
    const requestId = requestIdOf(req);
    // Stage 2 from memory: the authentication cache the full path reads first, holding the route's ability.
    const ctx = pipeline.fast.admit({ projectId: projectHeader, authorization: h.authorization, requestId, readAfter: h['read-after'] }, shape.ability);
    if (!ctx) return false;
    // Stage 4: the key the route computes, from this request's own generations.
    const key = readCache.restKey(ctx, shape.route, shape.path, shape.canonicalQuery, shape.collection);
    const read = key === null ? undefined : readCache.peek(key);
    if (!read) return false;
    if (wouldCompress(h['accept-encoding'], read.json, opts)) return false;
    // Stage 3, last: only a point the full path would not have to take again.
    const rate = pipeline.fast.budget(ctx);
    if (!rate) return false;
    readCache.countHit();

    const edge = edgeCacheable(ctx);
    const headers: Record<string, string | number> = {
      ...read.headers,
      ...(edge ? lowerKeys(edgeHeaders(pipeline.services.config, read.etag, REST_VARY)) : { etag: read.etag, 'cache-control': 'no-cache' }),
      'x-cache': 'HIT',
      'x-request-id': requestId,
      ...rateHeaders(rate),
    };
    if (opts.varyOrigin) headers.vary = edge ? `${REST_VARY}, Origin` : 'Origin';
    let status = 200;
    if (matchesIfNoneMatch(h['if-none-match'], read.etag)) {
      status = 304;
      res.writeHead(304, headers).end();
    } else {
      headers['content-type'] = 'application/json; charset=utf-8';
      headers['content-length'] = Buffer.byteLength(read.json);
      res.writeHead(200, headers).end(read.json);
    }
    opts.observe?.({ method: 'GET', route: shape.routePattern, status, ms: performance.now() - started, requestId, projectHeader });
    return true;
  };
}

/**
 * Whether the full path would compress this answer for this client (it asks for a coding and the body
 * reaches COMPRESSION_MIN_BYTES): only the full path compresses, so the early lanes hand it on. UTF-8
 * takes at most three bytes per UTF-16 unit, so the exact byte count is taken only when the string
 * could reach the threshold.
 */
export function wouldCompress(acceptEncoding: string | undefined, json: string, opts: Pick<CachedReadOptions, 'compressionMinBytes'>): boolean {
  return acceptEncoding !== undefined && json.length * 3 >= opts.compressionMinBytes && Buffer.byteLength(json) >= opts.compressionMinBytes;
}

const lowerKeys = (h: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
