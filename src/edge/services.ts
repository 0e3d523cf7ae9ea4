import type { Services } from '../context.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { CachedAnswer, ReadCache } from './read-cache/store.ts';
import type { KnownRestReads } from './read-cache/known-rest-reads.ts';
import type { LiveHub } from '../live/hub.ts';
import type { ChangeHints } from '../db/change-hints.ts';

/**
 * What the request pipeline adds to a process's Services: the surfaces (src/http, src/graphql) are
 * handed these; operations never see them (they get Services through Ctx).
 */
export interface EdgeServices extends Services {
  rateLimiter: RateLimiter;
  /** Published REST reads keyed by content generation (src/edge/read-cache/store.ts); absent when READ_CACHE_MB=0. */
  readCache?: ReadCache;
  /** The URLs of published REST reads answered so far, for answering repeats before routing; with `readCache`. */
  knownRestReads?: KnownRestReads;
  /** Content-read GraphQL results (src/graphql/plugins/result/use-read-cache.ts), same keys and budget; absent when READ_CACHE_MB=0. */
  graphqlReadCache?: ReadCache<CachedAnswer>;
  /** Live subscriptions of this replica (src/live); started by the first subscriber. */
  live: LiveHub;
  /** Wakes every replica's readers after a write committed (src/db/change-hints.ts); absent on embedded PGlite. */
  changeHints?: ChangeHints;
}
