import { createHash } from 'node:crypto';
import type { Ctx } from '../../context.ts';
import { canonical, type CachedRead, type ReadCache } from './store.ts';
import type { KnownRestReads } from './known-rest-reads.ts';
import { matchesIfNoneMatch } from './etag.ts';
import { REST_VARY, edgeCacheable, edgeHeaders, tagHeader, tagsOf, watchShown } from '../cdn/headers.ts';

/**
 * What the read-cache stage reads of a REST request: the route table's `RestInput` (src/rest/route.ts)
 * is one. Written out here so this folder knows no surface: the REST adapter hands its input over.
 */
export interface PublishedReadInput {
  params: Record<string, string | undefined>;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  raw: { url: string; method: string; routeOptions: { url?: string } };
  readCache?: ReadCache;
  knownReads?: KnownRestReads;
}

/** The route's answer, as the route table's `RestResult` has it. */
export interface PublishedReadResult {
  status?: number;
  body?: unknown;
  json?: string;
  headers?: Record<string, string>;
}

/**
 * Conditional GETs for published reads (docs/graphql.md, "HTTP caching"). A published read only
 * changes when a published pointer moves: of an entry it lists, of an entry it links (relations are
 * hydrated), or when an asset's metadata or the collection's fields change. The tag is a digest of
 * the published version ids and asset stamps the response carries plus the query that shaped it,
 * so it moves with exactly those changes; the few things outside the ids (a linked draft shown
 * through `includeDraft`, field definitions) are covered by also digesting the rendered fields.
 *
 * Weak tags (`W/"..."`): the same tag means the same JSON, not the same bytes on the wire.
 */

const TAG_VERSION = 'p1';

function stamps(value: unknown, out: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) stamps(item, out);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const o = value as Record<string, unknown>;
  if (typeof o.uuid === 'string' && 'published_version_id' in o) out.push(`e:${o.uuid}:${String(o.published_version_id)}`);
  else if (typeof o.uuid === 'string' && 'mime_type' in o) out.push(`a:${o.uuid}:${String(o.updated_at)}`);
  for (const v of Object.values(o)) if (typeof v === 'object' && v !== null) stamps(v, out);
}

export function publishedEtag(body: unknown, query: Record<string, unknown>, json = JSON.stringify(body)): string {
  const ids: string[] = [];
  stamps(body, ids);
  const hash = createHash('sha1').update(TAG_VERSION).update('\n').update(ids.join(',')).update('\n').update(canonical(query)).update('\n').update(json).digest('base64url');
  return `W/"${hash}"`;
}

/**
 * The reply of a published read: 200 with `ETag` (and `Cache-Control: no-cache`, so clients and
 * proxies revalidate every time; a delivery token's may be kept by a CDN, src/edge/cdn/headers.ts),
 * or 304 without a body when the client already holds it.
 */
function conditional(ctx: Ctx, input: Pick<PublishedReadInput, 'headers'>, read: CachedRead, cache: 'HIT' | 'MISS' | null): PublishedReadResult {
  const headers: Record<string, string> = edgeCacheable(ctx)
    ? { ...read.headers, ...edgeHeaders(ctx.services.config, read.etag, REST_VARY) }
    : { ...read.headers, ETag: read.etag, 'Cache-Control': 'no-cache' };
  // Like a CDN's: tells operators (and the tests) whether the read cache answered.
  if (cache) headers['X-Cache'] = cache;
  if (matchesIfNoneMatch(input.headers['if-none-match'], read.etag)) return { status: 304, headers };
  return { status: 200, headers, json: read.json };
}

/** Whether a read serves published content (docs/entries.md: `published` is the default, anything but `draft` is published). */
export const isPublishedRead = (query: Record<string, unknown>): boolean => {
  const state = Array.isArray(query.state) ? query.state[0] : query.state;
  return state !== 'draft';
};

type Handler<I extends PublishedReadInput, R extends PublishedReadResult> = (ctx: Ctx, input: I) => Promise<R>;

/**
 * Wraps a read route: its published answers get an ETag, become 304 when the client holds them,
 * and are served from the read cache (src/edge/read-cache/store.ts) while nothing a published read of the
 * route's collection shows has changed. `route` names the route in cache keys.
 */
export function withPublishedEtag<I extends PublishedReadInput, R extends PublishedReadResult>(route: string, handler: Handler<I, R>): Handler<I, R | PublishedReadResult> {
  return async (ctx, input) => {
    if (!isPublishedRead(input.query)) return handler(ctx, input);
    const cache = input.readCache;
    const path = input.raw.url.split('?')[0];
    const canonicalQuery = canonical(input.query);
    // Keyed by the route's collection: its published generation also moves with what it hydrates.
    const key = cache?.restKey(ctx, route, path, canonicalQuery, input.params.collection) ?? null;
    const projectHeader = input.headers['project-id'];
    if (key && input.knownReads && typeof projectHeader === 'string' && input.raw.method === 'GET') {
      // Every published read route requires `read` (the route table; test/auth/matrix.test.ts).
      input.knownReads.remember(projectHeader, input.raw.url, () => ({
        route,
        routePattern: input.raw.routeOptions.url ?? '(unmatched)',
        ability: 'read',
        path,
        canonicalQuery,
        collection: input.params.collection,
      }));
    }
    if (!cache || !key) {
      watchShown(ctx);
      const result = await handler(ctx, input);
      const read = cacheable(ctx, result, input);
      return read ? conditional(ctx, input, read, null) : result;
    }
    const hit = cache.get(key) ?? (await cache.waitFor(key));
    if (hit) return conditional(ctx, input, hit, 'HIT');
    const done = cache.begin(key);
    let read: CachedRead | undefined;
    try {
      watchShown(ctx);
      const result = await handler(ctx, input);
      read = cacheable(ctx, result, input);
      return read ? conditional(ctx, input, read, 'MISS') : result;
    } finally {
      done?.(read);
    }
  };
}

/**
 * A 200 with a body, serialised once with its tag; anything else (404, 304 inputs...) passes as is.
 * A delivery token's read keeps its CDN tags with it: cached copies are keyed by the token's scope,
 * which names delivery, so they only ever go to delivery tokens.
 */
function cacheable(ctx: Ctx, result: PublishedReadResult, input: PublishedReadInput): CachedRead | undefined {
  if ((result.status ?? 200) !== 200 || result.body === undefined) return undefined;
  const json = JSON.stringify(result.body);
  const headers = ctx.shown ? { ...result.headers, ...tagHeader(ctx.services.config, tagsOf(ctx.project.uuid, ctx.shown)) } : result.headers;
  return { json, etag: publishedEtag(result.body, input.query, json), headers };
}
