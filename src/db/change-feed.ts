import pg from 'pg';
import type { Logger } from '../logger.ts';

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
 * One dedicated connection holding `LISTEN cms_changes`, reconnecting with backoff when it drops.
 * Losing it tells every subscriber to forget everything, so a gap in notifications can never leave
 * a stale answer behind. TCP keepalive finds a dead peer; consumers also bound how long they trust
 * an answer (AUTH_CACHE_MS) for the case where nothing notices.
 */
export function listenForChanges(connectionString: string, log: Logger, opts: { minRetryMs?: number; maxRetryMs?: number } = {}): ChangeFeed {
  const minRetry = opts.minRetryMs ?? 100;
  const maxRetry = opts.maxRetryMs ?? 5000;
  const subscribers = new Set<(change: Change) => void>();
  let client: pg.Client | undefined;
  let live = false;
  let session = 0;
  let closed = false;
  let retryMs = minRetry;
  let timer: NodeJS.Timeout | undefined;

  const emit = (change: Change) => {
    for (const fn of subscribers) {
      try {
        fn(change);
      } catch (err) {
        log.error({ err }, 'change feed subscriber failed');
      }
    }
  };

  const lost = (which: pg.Client, err?: unknown) => {
    if (client !== which) return;
    client = undefined;
    const wasLive = live;
    live = false;
    session++;
    emit({ kind: 'all' });
    which.removeAllListeners('notification');
    which.end().catch(() => {});
    if (closed) return;
    if (wasLive) log.warn({ err: err instanceof Error ? err.message : undefined }, 'change feed lost; answering from the database until it is back');
    timer = setTimeout(connect, retryMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, maxRetry);
  };

  function connect(): void {
    if (closed) return;
    // Keepalive probes after 10 s idle instead of the OS default of two hours: a feed is idle most of the time.
    const c = new pg.Client({ connectionString, keepAlive: true, keepAliveInitialDelayMillis: 10_000, application_name: CHANGE_FEED_APPLICATION });
    client = c;
    c.on('notification', (msg) => {
      if (client === c && msg.channel === CHANGES_CHANNEL) emit(parseChange(msg.payload));
    });
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c));
    c.connect()
      .then(() => c.query(`LISTEN ${CHANGES_CHANNEL}`))
      .then(() => {
        if (client !== c || closed) return;
        session++;
        live = true;
        retryMs = minRetry;
        log.debug('change feed listening');
      })
      .catch((err: unknown) => lost(c, err));
  }

  connect();
  return {
    get live() {
      return live;
    },
    get session() {
      return session;
    },
    subscribe(fn) {
      subscribers.add(fn);
      return () => subscribers.delete(fn);
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      if (c) lost(c);
      subscribers.clear();
    },
  };
}
