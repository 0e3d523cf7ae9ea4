import type { FastifyInstance } from 'fastify';
import cors from '@fastify/cors';

/**
 * Request headers a browser may always send cross-origin: the API's own, conditional reads, and the
 * event id a live stream resumes from. CORS_ALLOW_HEADERS adds more (tracing headers by default).
 */
export const API_REQUEST_HEADERS = ['project-id', 'authorization', 'content-type', 'if-none-match', 'x-request-id', 'last-event-id', 'read-after'];
/** Response headers a cross-origin script may read. */
const EXPOSED_HEADERS = ['etag', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'x-request-id', 'location', 'read-after'];

/**
 * One CORS policy for REST and GraphQL (Yoga's own CORS is off), from CORS_ORIGINS: empty (default)
 * = no cross-origin access at all (no plugin, no headers); `*` = any origin, never with credentials;
 * a list = exactly those origins, reflected with `Access-Control-Allow-Credentials: true`. Any other
 * origin gets no CORS headers, and its preflight falls through to the route table (OPTIONS answers
 * 204 with `Allow` but no `Access-Control-*`, so the browser refuses), /graphql included: no route
 * takes OPTIONS itself, so every path answers a preflight the same way.
 */
/**
 * Whether every response says `Vary: Origin`: with an allow-list the plugin decides per origin, so
 * caches must keep answers apart by it (the Fetch standard's CORS and HTTP caches); `*` answers all
 * origins alike. src/http/cached-reads.ts sends what the plugin would.
 */
export const corsVariesByOrigin = (originsList: string[]): boolean => originsList.length > 0 && !originsList.includes('*');

export async function registerCors(app: FastifyInstance, originsList: string[], extraHeaders: readonly string[] = []): Promise<void> {
  if (originsList.length === 0) return;
  const any = originsList.includes('*');
  const allowed = new Set(originsList);
  await app.register(cors, {
    origin: any ? '*' : (origin, cb) => cb(null, origin !== undefined && allowed.has(origin) ? origin : false),
    credentials: !any,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: [...new Set([...API_REQUEST_HEADERS, ...extraHeaders])],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
    // A bare OPTIONS (no Origin) is an HTTP question about the path, not a preflight: the route table answers it.
    strictPreflight: false,
  });
}
