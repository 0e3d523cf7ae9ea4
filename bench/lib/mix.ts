import { postBody, type Api } from './seed.ts';
import { nowMs } from './receiver.ts';

/** One request of the soak's traffic mix. */
export interface MixRequest {
  kind: 'read' | 'write' | 'bulk';
  method: string;
  path: string;
  body?: unknown;
}

/** The soak's GraphQL list query: typed when the server serves `posts`, else the generic `entries`. */
export const TYPED_LIST = 'query Posts($page: Int) { posts(perPage: 25, page: $page) { data { uuid title author { name } } } }';
export const GENERIC_LIST = 'query Posts($page: Int) { entries(collection: "posts", perPage: 25, page: $page) { data { uuid fields } } }';

/**
 * Reads 80 % (REST get, REST list, GraphQL list), writes 15 % (creates and PATCHes, each emitting a
 * webhook event), bulk 5 % (10-item bulk create). Deterministic from the counter, so two runs send
 * the same sequence. `gqlList` is a list query taking `$page`.
 */
export function mixRequest(n: number, posts: string[], authors: string[], gqlList: string): MixRequest {
  const slot = n % 20;
  const post = posts[(n * 7919) % posts.length];
  if (slot < 8) return { kind: 'read', method: 'GET', path: `/api/posts/${post}` };
  if (slot < 12) return { kind: 'read', method: 'GET', path: `/api/posts?paginate=25&page=${1 + (n % 4)}` };
  if (slot < 16)
    return { kind: 'read', method: 'POST', path: '/graphql', body: { query: gqlList, variables: { page: 1 + (n % 4) } } };
  if (slot === 16 || slot === 17) return { kind: 'write', method: 'POST', path: '/api/posts', body: { data: postBody(n, authors[n % authors.length]), state: 'published' } };
  if (slot === 18) return { kind: 'write', method: 'PATCH', path: `/api/posts/${post}`, body: { data: { views: n } } };
  return { kind: 'bulk', method: 'POST', path: '/api/bulk/posts/entries', body: { items: Array.from({ length: 10 }, (_, i) => ({ data: postBody(n * 10 + i, authors[i % authors.length]), state: 'draft' })) } };
}

export interface Sent {
  kind: MixRequest['kind'];
  status: number;
  ms: number;
  at: number;
}

/** Sends one mix request; network failures come back as status 0. */
export async function send(api: Api, r: MixRequest): Promise<Sent> {
  const t = performance.now();
  try {
    const res = await fetch(`${api.base}${r.path}`, {
      method: r.method,
      headers: { ...api.headers, accept: 'application/json', ...(r.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: r.body !== undefined ? JSON.stringify(r.body) : undefined,
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    // GraphQL answers 200 with errors: those count as errors too.
    const failed = res.status === 200 && r.path === '/graphql' && text.includes('"errors"');
    return { kind: r.kind, status: failed ? 599 : res.status, ms: performance.now() - t, at: nowMs() };
  } catch {
    return { kind: r.kind, status: 0, ms: performance.now() - t, at: nowMs() };
  }
}
