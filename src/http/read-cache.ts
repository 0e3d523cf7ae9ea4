import { LRUCache } from 'lru-cache';
import type { Ctx } from '../context.ts';
import { canonical } from './etag.ts';

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
 * 20261122180000), and authentication reads it with the project in the statement it runs anyway, so
 * a hit is never older than the request's own view of the database: no TTL, no invalidation
 * messages, and every replica agrees. Because the generation is read before the handler's queries, an
 * answer computed from rows older than a concurrent commit is stored under the older generation,
 * which no later request asks for. Old generations simply age out of the LRU.
 */
export class ReadCache {
  private readonly entries: LRUCache<string, CachedRead>;
  hits = 0;
  misses = 0;

  constructor(maxBytes: number) {
    this.entries = new LRUCache<string, CachedRead>({
      maxSize: maxBytes,
      // Strings are UTF-16 in memory; the key and object overhead are counted roughly.
      sizeCalculation: (v, k) => 2 * (v.json.length + k.length) + 256,
    });
  }

  /** The key of a read, or null when the request has no generation (system actors). */
  keyFor(ctx: Ctx, route: string, path: string, query: Record<string, unknown>): string | null {
    if (ctx.contentGeneration === undefined) return null;
    const p = ctx.project;
    return `${p.id}|${ctx.contentGeneration}|${p.schemaRevision}|${p.updatedAt.getTime()}|${route}|${path}|${canonical(query)}`;
  }

  get(key: string): CachedRead | undefined {
    const hit = this.entries.get(key);
    if (hit) this.hits++;
    else this.misses++;
    return hit;
  }

  set(key: string, value: CachedRead): void {
    this.entries.set(key, value);
  }

  get size(): number {
    return this.entries.size;
  }
}
