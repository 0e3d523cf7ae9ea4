import { LRUCache } from 'lru-cache';

/**
 * What a cache key is made of: the project's identity and schema stamps and the generations
 * authentication read (the project-wide one, and per collection slug its id and published and
 * draft generations). A request context (src/context.ts) is one.
 */
export interface CacheScope {
  project: { id: number; schemaRevision: number; updatedAt: Date };
  contentGeneration?: string;
  collectionGenerations?: Readonly<Record<string, readonly [number, number, number]>>;
  /** A scoped token's scope: its digest is part of every key, so no answer crosses scopes. */
  scope?: { digest: string };
}

/** A cached GraphQL answer: the JSON text as sent, and its ETag when a GET may be tagged (no draft asked for). */
export interface CachedAnswer {
  json: string;
  etag?: string;
  /** A delivery token's answer: the CDN tags of what it showed (src/edge/cdn/headers.ts). */
  tags?: readonly string[];
}

/** What a cached read shows: the published or the draft content of one collection (by slug). */
export interface ReadDependency {
  collection: string;
  state: 'published' | 'draft';
}

/** The canonical form of a query: keys sorted at every level, so `?a=1&b=2` and `?b=2&a=1` share a tag. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}


/** A published read as it went out: the JSON text, its tag and the handler's extra headers. */
export interface CachedRead {
  json: string;
  etag: string;
  headers?: Record<string, string>;
}

/**
 * Cached reads by (project, the generations the read depends on, schema revision, project settings,
 * then the caller's parts: route, request path, canonical query, or a GraphQL document). A read that
 * names its collections (`keyForReads`) is keyed by those collections' published or draft
 * generations (migration 20261126000000): they move at the commit of every change that read could
 * show, including changes of the collections it hydrates, and of nothing else, so a draft save
 * leaves published reads cached and a write to one collection leaves the others'. A read that cannot
 * name them (`keyFor`) is keyed by the project-wide generation, which every change moves. Both are
 * bumped by database triggers and given by authentication with the project (read in the statement
 * it runs anyway, or held by src/auth/auth-cache.ts until a change notification), so a hit is never
 * older than the request's own view of the generations: no TTL and no invalidation messages of its
 * own. Because the generations are read before the handler's queries, an answer computed from rows
 * older than a concurrent commit is stored under the older generations, which no later request asks
 * for. Old generations simply age out of the LRU.
 *
 * Key layout: `project|scope|generations|schema revision|settings stamp|token scope|parts…`, where
 * token scope is a scoped token's digest (`-` for none: an answer built for one token scope is never
 * served to another) and scope is `*`
 * (project-wide) or the sorted dependencies (`c12p,c15d`: collection id and state) and generations
 * their counters in the same order (`34.7`).
 */
const LEADER_TIMEOUT_MS = 10_000;

export class ReadCache<V extends object = CachedRead> {
  private readonly entries: LRUCache<string, V>;
  private readonly inflight = new Map<string, Promise<V | undefined>>();
  /** Per project and scope: the newest generations stored and their keys, so older ones can be dropped at once. */
  private readonly byScope = new Map<string, { generations: bigint[]; keys: Set<string> }>();
  hits = 0;
  misses = 0;

  /** `sizeOf` estimates a value's bytes; strings count twice (UTF-16), plus a rough overhead. */
  constructor(maxBytes: number, sizeOf: (value: V) => number = (v) => readSize(v as unknown as CachedRead)) {
    this.entries = new LRUCache<string, V>({
      maxSize: maxBytes,
      sizeCalculation: (v, k) => sizeOf(v) + 2 * k.length + 256,
      // Keeps the per-project key sets no larger than what the LRU holds.
      dispose: (_v, k) => this.byScope.get(scopeOf(k))?.keys.delete(k),
    });
  }

  /**
   * The key of a read under the project-wide generation (any change of the project's content moves
   * it), or null when the request has no generation (system actors).
   */
  keyFor(ctx: CacheScope, ...parts: string[]): string | null {
    if (ctx.contentGeneration === undefined) return null;
    return this.key(ctx, '*', ctx.contentGeneration, parts);
  }

  /**
   * The key of a read that shows only `reads` (and what they hydrate): keyed by those collections'
   * generations. Falls back to the project-wide key when `reads` is null or empty or names a
   * collection authentication did not see (a read of it answers 404 anyway).
   */
  keyForReads(ctx: CacheScope, reads: readonly ReadDependency[] | null, ...parts: string[]): string | null {
    const gens = ctx.collectionGenerations;
    if (ctx.contentGeneration === undefined || !gens || !reads?.length) return this.keyFor(ctx, ...parts);
    const deps = new Map<string, string>();
    for (const r of reads) {
      const g = Object.hasOwn(gens, r.collection) ? gens[r.collection] : undefined;
      if (!g) return this.keyFor(ctx, ...parts);
      deps.set(`c${g[0]}${r.state === 'draft' ? 'd' : 'p'}`, String(r.state === 'draft' ? g[2] : g[1]));
    }
    const scope = [...deps.keys()].sort();
    return this.key(ctx, scope.join(','), scope.map((d) => deps.get(d)).join('.'), parts);
  }

  /** The key of a published REST read: route name, request path and canonical query; `collection` is the route's. */
  restKeyFor(ctx: CacheScope, route: string, path: string, query: Record<string, unknown>, collection?: string): string | null {
    return this.restKey(ctx, route, path, canonical(query), collection);
  }

  /** `restKeyFor` with the query already in canonical form (src/edge/read-cache/known-rest-reads.ts keeps it so). */
  restKey(ctx: CacheScope, route: string, path: string, canonicalQuery: string, collection?: string): string | null {
    const parts = [route, path, canonicalQuery];
    return collection === undefined ? this.keyFor(ctx, ...parts) : this.keyForReads(ctx, [{ collection, state: 'published' }], ...parts);
  }

  private key(ctx: CacheScope, scope: string, generations: string, parts: string[]): string {
    const p = ctx.project;
    return `${p.id}|${scope}|${generations}|${p.schemaRevision}|${p.updatedAt.getTime()}|${ctx.scope?.digest ?? '-'}|${parts.join('|')}`;
  }

  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (hit) this.hits++;
    else this.misses++;
    return hit;
  }

  /**
   * A hit, counted as one; a miss is not counted, because the caller hands the request on to a path
   * that looks the key up again (and counts the miss there): the GraphQL answer fast path.
   */
  hitOnly(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (hit) this.hits++;
    return hit;
  }

  /** The entry without counting anything: for a caller that may still hand the request on (it counts with `countHit`). */
  peek(key: string): V | undefined {
    return this.entries.get(key);
  }

  countHit(): void {
    this.hits++;
  }

  /**
   * Stores a value. A value of newer generations than the others of its project and scope drops
   * those others: no request asks for them again, and under steady writes they would otherwise fill
   * the whole budget before the LRU ages them out. A value of older generations is not stored.
   */
  set(key: string, value: V): void {
    const scope = scopeOf(key);
    const generations = key.slice(scope.length + 1, key.indexOf('|', scope.length + 1)).split('.').map(BigInt);
    const current = this.byScope.get(scope);
    const order = current ? compare(generations, current.generations) : 1;
    if (order < 0) return;
    if (!current || order > 0) {
      for (const old of current?.keys ?? []) this.entries.delete(old);
      this.byScope.set(scope, { generations, keys: new Set([key]) });
    } else {
      current.keys.add(key);
    }
    this.entries.set(key, value);
  }

  /**
   * Single flight: while one request computes a key, concurrent requests for the same key wait for
   * its value instead of computing it again (32 clients asking for an entry nobody has read since the
   * last change would otherwise all run the same queries). `begin` returns the leader's `done`, to be
   * called with the value (stored) or undefined (not cacheable: followers compute their own); null
   * when another request already leads, whose outcome `waitFor` gives.
   */
  begin(key: string): ((value: V | undefined) => void) | null {
    if (this.inflight.has(key)) return null;
    let settle!: (value: V | undefined) => void;
    const promise = new Promise<V | undefined>((resolve) => (settle = resolve));
    this.inflight.set(key, promise);
    let settled = false;
    const done = (value: V | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(guard);
      if (value !== undefined) this.set(key, value);
      if (this.inflight.get(key) === promise) this.inflight.delete(key);
      settle(value);
    };
    // A leader that never reports (an execution that throws past its hooks) must not hold followers.
    const guard = setTimeout(() => done(undefined), LEADER_TIMEOUT_MS);
    guard.unref();
    return done;
  }

  waitFor(key: string): Promise<V | undefined> | undefined {
    return this.inflight.get(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** A read's bytes: its JSON and its extra headers (a delivery read's CDN tags can be kilobytes). */
function readSize(r: CachedRead): number {
  let n = 2 * r.json.length;
  if (r.headers) for (const [k, v] of Object.entries(r.headers)) n += 2 * (k.length + v.length);
  return n;
}

/** `project|scope`: the first two segments of a key. */
function scopeOf(key: string): string {
  return key.slice(0, key.indexOf('|', key.indexOf('|') + 1));
}

/**
 * -1 when `a` is older than `b` (no counter ahead, one behind), 0 when equal, 1 otherwise: counters
 * only grow, so anything not older is the newer view (mixed orders only come from racing reads).
 */
function compare(a: bigint[], b: bigint[]): -1 | 0 | 1 {
  if (a.length !== b.length) return 1;
  let behind = false;
  for (let i = 0; i < a.length; i++) {
    if (a[i] > b[i]) return 1;
    if (a[i] < b[i]) behind = true;
  }
  return behind ? -1 : 0;
}
