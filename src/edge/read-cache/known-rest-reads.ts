import { LRUCache } from 'lru-cache';
import type { Ability } from '../../abilities.ts';

/** What the full path worked out about a published read's URL: enough to name its cache key again. */
export interface RestReadShape {
  /** The route's name in cache keys (`entries.get`, `entries.list`). */
  route: string;
  /** The route's URL pattern, as the access log and the metrics name it. */
  routePattern: string;
  /** The ability the route requires. */
  ability: Ability;
  /** The path part of the URL, as the key names it. */
  path: string;
  /** The query string as the router parsed it, in canonical form (src/edge/read-cache/store.ts). */
  canonicalQuery: string;
  /** The collection whose published generation keys the read. */
  collection?: string;
}

/**
 * The published REST reads this replica has answered, by project header and raw URL: what lets a
 * repeated read be answered before routing (src/http/cached-reads.ts). Only the parsing is
 * remembered, never an answer or a decision: the key is computed again from the request's own
 * authentication and the current generations, exactly as the route computes it, and only an answer
 * the route stored under that key is sent. Bounded; a forgotten URL takes the full path once.
 */
export class KnownRestReads {
  private readonly shapes = new LRUCache<string, RestReadShape>({ max: 10_000 });

  /** `shape` is only called for a URL not known yet. */
  remember(projectHeader: string, url: string, shape: () => RestReadShape): void {
    const key = `${projectHeader}\n${url}`;
    if (!this.shapes.has(key)) this.shapes.set(key, shape());
  }

  find(projectHeader: string, url: string): RestReadShape | undefined {
    return this.shapes.get(`${projectHeader}\n${url}`);
  }
}
