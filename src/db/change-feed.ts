import type { Logger } from '../logger.ts';
import { listenOn } from './listener.ts';

/** The channel migration 20261123000000 notifies on. */
export const CHANGES_CHANNEL = 'cms_changes';

/**
 * Something a commit changed that a server must forget what it holds for: one project (its row or
 * tokens), one project's trusted documents (its manifest's flag or documents, migration
 * 20261127001000), or everything (TRUNCATE, a lost connection).
 */
export type Change = { kind: 'project'; projectId: number } | { kind: 'trusted-documents'; projectId: number } | { kind: 'all' };

/**
 * A content commit (migration 20261126070000): the counters it moved, with their new values. Nothing
 * to forget: a holder of generations raises its own to these.
 */
export interface ContentChange {
  projectId: number;
  /** The project-wide content generation after the commit. */
  generation?: bigint;
  /** Collection id, published and draft generations after the commit. */
  collections?: Array<[number, number, number]>;
}

export interface ChangeFeed {
  /**
   * True while LISTEN is in place. Only then does a consumer hear of every commit: while false it
   * must not answer from anything it remembers.
   */
  readonly live: boolean;
  /**
   * Moves on every connect and every loss. A read that began in one session and ends in another may
   * have missed a notification in the gap, so consumers keep only what began and ended in one.
   */
  readonly session: number;
  subscribe(fn: (change: Change) => void): () => void;
  /** Content commits: their new generations, in commit order. */
  subscribeContent(fn: (change: ContentChange) => void): () => void;
  close(): Promise<void>;
}

/** Identifies the feed's backend in pg_stat_activity (operators, and the tests that cut it). */
export const CHANGE_FEED_APPLICATION = 'cms change feed';

export function parseChange(payload: string | undefined): Change | ContentChange {
  const p = payload ?? '';
  const m = /^p:(\d+)$/.exec(p);
  if (m) return { kind: 'project', projectId: Number(m[1]) };
  const t = /^t:(\d+)$/.exec(p);
  if (t) return { kind: 'trusted-documents', projectId: Number(t[1]) };
  const c = /^c:(\d+):(\d+)$/.exec(p);
  if (c) return { projectId: Number(c[1]), generation: BigInt(c[2]) };
  const g = /^g:(\d+):(\d+\.\d+\.\d+(?:,\d+\.\d+\.\d+)*)$/.exec(p);
  if (g) return { projectId: Number(g[1]), collections: g[2].split(',').map((t) => t.split('.').map(Number) as [number, number, number]) };
  // An unknown payload (a newer migration talking to an older server) is treated as "forget all".
  return { kind: 'all' };
}

const isContent = (c: Change | ContentChange): c is ContentChange => !('kind' in c);

/**
 * The server's LISTEN on `cms_changes` (src/db/listener.ts). Losing the connection tells every
 * subscriber to forget everything, so a gap in notifications can never leave a stale answer behind.
 * Keepalive finds a dead peer; consumers also bound how long they trust an answer (AUTH_CACHE_MS)
 * for the case where nothing notices.
 */
export function listenForChanges(connectionString: string, log: Logger, opts: { minRetryMs?: number; maxRetryMs?: number } = {}): ChangeFeed {
  const subscribers = new Set<(change: Change) => void>();
  const contentSubscribers = new Set<(change: ContentChange) => void>();
  const emit = (change: Change | ContentChange) => {
    for (const fn of isContent(change) ? contentSubscribers : subscribers) {
      try {
        (fn as (c: Change | ContentChange) => void)(change);
      } catch (err) {
        log.error({ err }, 'change feed subscriber failed');
      }
    }
  };
  const listener = listenOn(
    connectionString,
    CHANGES_CHANNEL,
    log,
    { notify: (payload) => emit(parseChange(payload)), lost: () => emit({ kind: 'all' }) },
    { ...opts, applicationName: CHANGE_FEED_APPLICATION },
  );
  return {
    get live() {
      return listener.live;
    },
    get session() {
      return listener.session;
    },
    subscribe(fn) {
      subscribers.add(fn);
      return () => subscribers.delete(fn);
    },
    subscribeContent(fn) {
      contentSubscribers.add(fn);
      return () => contentSubscribers.delete(fn);
    },
    async close() {
      await listener.close();
      subscribers.clear();
      contentSubscribers.clear();
    },
  };
}
