import type { Logger } from '../logger.ts';
import { listenOn } from './listener.ts';

/** The channel migration 20261123000000 notifies on. */
export const CHANGES_CHANNEL = 'cms_changes';

/** Something a commit changed: one project (its row, tokens or content), or everything (TRUNCATE, a lost connection). */
export type Change = { kind: 'project'; projectId: number } | { kind: 'all' };

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
  close(): Promise<void>;
}

/** Identifies the feed's backend in pg_stat_activity (operators, and the tests that cut it). */
export const CHANGE_FEED_APPLICATION = 'cms change feed';

export function parseChange(payload: string | undefined): Change {
  const m = /^p:(\d+)$/.exec(payload ?? '');
  // An unknown payload (a newer migration talking to an older server) is treated as "forget all".
  return m ? { kind: 'project', projectId: Number(m[1]) } : { kind: 'all' };
}

/**
 * The server's LISTEN on `cms_changes` (src/db/listener.ts). Losing the connection tells every
 * subscriber to forget everything, so a gap in notifications can never leave a stale answer behind.
 * Keepalive finds a dead peer; consumers also bound how long they trust an answer (AUTH_CACHE_MS)
 * for the case where nothing notices.
 */
export function listenForChanges(connectionString: string, log: Logger, opts: { minRetryMs?: number; maxRetryMs?: number } = {}): ChangeFeed {
  const subscribers = new Set<(change: Change) => void>();
  const emit = (change: Change) => {
    for (const fn of subscribers) {
      try {
        fn(change);
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
    async close() {
      await listener.close();
      subscribers.clear();
    },
  };
}
