import { LRUCache } from 'lru-cache';

/**
 * What a cache key is made of: the project's identity and schema stamps and the content generation
 * authentication read. A request context (src/context.ts) is one.
 */
export interface CacheScope {
  project: { id: number; schemaRevision: number; updatedAt: Date };
  contentGeneration?: string;
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
 * Published REST reads by (project, content generation, schema revision, project settings, route,
 * request path, canonical query). The content generation moves at the commit of every change of
 * the project's entries, assets, collections or fields (a database trigger, migration
 * 20261122180000), and authentication gives it with the project (read in the statement it runs
 * anyway, or held by src/auth/auth-cache.ts until a change notification), so a hit is never older
 * than the request's own view of the generation: no TTL and no invalidation messages of its own.
 * Because the generation is read before the handler's queries, an
 * answer computed from rows older than a concurrent commit is stored under the older generation,
 * which no later request asks for. Old generations simply age out of the LRU.
 */
const LEADER_TIMEOUT_MS = 10_000;

export class ReadCache<V extends object = CachedRead> {
  private readonly entries: LRUCache<string, V>;
  private readonly inflight = new Map<string, Promise<V | undefined>>();
  /** Per project: the newest generation stored and its keys, so older generations can be dropped at once. */
  private readonly byProject = new Map<number, { generation: bigint; keys: Set<string> }>();
  hits = 0;
  misses = 0;

  /** `sizeOf` estimates a value's bytes; strings count twice (UTF-16), plus a rough overhead. */
  constructor(maxBytes: number, sizeOf: (value: V) => number = (v) => 2 * (v as unknown as CachedRead).json.length) {
    this.entries = new LRUCache<string, V>({
      maxSize: maxBytes,
      sizeCalculation: (v, k) => sizeOf(v) + 2 * k.length + 256,
      // Keeps the per-project key sets no larger than what the LRU holds.
      dispose: (_v, k) => this.byProject.get(Number(k.slice(0, k.indexOf('|'))))?.keys.delete(k),
    });
  }

  /** The key of a read, or null when the request has no generation (system actors). */
  keyFor(ctx: CacheScope, ...parts: string[]): string | null {
    if (ctx.contentGeneration === undefined) return null;
    const p = ctx.project;
    return `${p.id}|${ctx.contentGeneration}|${p.schemaRevision}|${p.updatedAt.getTime()}|${parts.join('|')}`;
  }

  /** The key of a REST read: route name, request path and canonical query. */
  restKeyFor(ctx: CacheScope, route: string, path: string, query: Record<string, unknown>): string | null {
    return this.keyFor(ctx, route, path, canonical(query));
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

  /**
   * Stores a value. A value of a newer generation than the project's others drops those others: no
   * request asks for them again, and under steady writes they would otherwise fill the whole budget
   * before the LRU ages them out.
   */
  set(key: string, value: V): void {
    const [project, generation] = key.split('|', 2);
    const projectId = Number(project);
    const gen = BigInt(generation);
    const current = this.byProject.get(projectId);
    if (current && gen < current.generation) return;
    if (!current || gen > current.generation) {
      for (const old of current?.keys ?? []) this.entries.delete(old);
      this.byProject.set(projectId, { generation: gen, keys: new Set([key]) });
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
