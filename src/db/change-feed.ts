import type { Logger } from '../logger.ts';
import { listenOn, type Listen, type ListenHandlers } from './listener.ts';
import type { Database } from './postgres.ts';

/** The channel migration 20261123000000 notifies on. */
export const CHANGES_CHANNEL = 'cms_changes';

/**
 * Something a commit changed that a server must forget what it holds for: one project (its row or
 * tokens), one project's trusted documents (its manifest's flag or documents, migration
 * 20261127001000), or everything (TRUNCATE, a lost connection).
 */
export type Change = { kind: 'project'; projectId: number } | { kind: 'trusted-documents'; projectId: number } | { kind: 'all' };

/**
 * A content commit's effect on one project (migration 20261128010000): its generations as the change
 * log counts them after the commit. Nothing to forget: a holder of generations raises its own to
 * these (counts only grow, so the larger value is the newer one whatever the order heard).
 */
export interface ContentChange {
  projectId: number;
  /** The project-wide content generation. */
  generation?: bigint;
  /** Collection id, published and draft generations. */
  collections?: Array<[number, number, number]>;
  /** The primary's WAL position when they were counted: a replica past it shows them (src/db/replicas.ts). */
  lsn?: string;
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

/** The payload writers send after a content commit: read the change log now (src/db/change-hints.ts). */
export const CONTENT_HINT = 'h';

export function parseChange(payload: string | undefined): Change | 'hint' {
  const p = payload ?? '';
  if (p === CONTENT_HINT) return 'hint';
  const m = /^p:(\d+)$/.exec(p);
  if (m) return { kind: 'project', projectId: Number(m[1]) };
  const t = /^t:(\d+)$/.exec(p);
  if (t) return { kind: 'trusted-documents', projectId: Number(t[1]) };
  // An unknown payload (a newer migration talking to an older server) is treated as "forget all".
  return { kind: 'all' };
}

/**
 * The rows of the change log a feed has not read yet, and what they changed: each project's
 * generations as the same snapshot counts them. One statement, one snapshot: `horizon` (the oldest
 * transaction of this database the snapshot sees running) is the next read's lower bound, since no
 * transaction below it can add a row any more. Rows at or above the old horizon that the feed has
 * read already are passed in `$2` and left out; no row below it is unread. The statement lives in a
 * function (migration 20261201060100) so that its plan is generic and kept: sent as text, it was
 * planned again at every read.
 */
const READ_LOG_SQL = 'SELECT horizon, lsn, rows, changes FROM cms_read_content_log($1::text, $2::bigint[])';

interface LogRead {
  horizon: string;
  lsn: string;
  rows: Array<[string, string]>;
  changes: Array<[number, string, Array<[number, number, number]>]>;
}

export interface ChangeFeedOptions {
  minRetryMs?: number;
  maxRetryMs?: number;
  /**
   * Where the content change log is read (content subscribers need it). Without it the feed carries
   * project, token and manifest changes only.
   */
  database?: Database;
  /** How often the log is read when no hint arrives (a lost hint delays a change by this much). */
  pollMs?: number;
  /** Least time between the starts of two reads of the log (READ_GAP_MS). */
  gapMs?: number;
}

/**
 * Every write hints every replica, so under a steady stream of writes the log was read about once
 * per write (each read scans every backend's state for its horizon and counts the generations of
 * each project it finds): a large share of PostgreSQL's work per write. One read per 20 ms (50 a
 * second at most) carries every commit of them; a replica hears of another's write at most this much
 * later (a lost hint: the 100 ms poll), and a replica's own writes do not wait for its feed at all
 * (src/edge/pipeline/stages.ts forgets the project's cached authentication before answering).
 */
const READ_GAP_MS = 20;

/**
 * Longest gap between two reads of the log after which the feed cannot vouch for what it missed:
 * the compaction folds rows `CONTENT_LOG_KEEP_SECONDS` after their commit (src/db/content-log.ts).
 */
const STALE_READ_MS = 5_000;

/**
 * The server's change feed. Project, token and manifest changes arrive as NOTIFY on `cms_changes`
 * from triggers (rare; src/db/listener.ts, or on embedded PGlite the owner's `Database.listen`).
 * Content changes are read from the change log (migration 20261128010000) in commit-safe order: woken by the hint writers send after their commit, by a poll
 * every `pollMs`, and on every (re)connect. Losing the connection or a read of the log tells every
 * subscriber to forget everything, so a gap can never leave a stale answer behind. Keepalive finds a
 * dead peer; consumers also bound how long they trust an answer (AUTH_CACHE_MS) for the case where
 * nothing notices.
 */
export function listenForChanges(source: string | Listen, log: Logger, opts: ChangeFeedOptions = {}): ChangeFeed {
  const subscribers = new Set<(change: Change) => void>();
  const contentSubscribers = new Set<(change: ContentChange) => void>();
  const emit = (change: Change) => {
    for (const fn of subscribers) {
      try {
        fn(change);
      } catch (err) {
        log.error({ err }, 'change feed subscriber failed');
      }
    }
  };
  const emitContent = (change: ContentChange) => {
    for (const fn of contentSubscribers) {
      try {
        fn(change);
      } catch (err) {
        log.error({ err }, 'change feed subscriber failed');
      }
    }
  };

  let closed = false;
  /** The lower bound of the next read (null: none yet in this session; the first read only sets it). */
  let horizon: string | null = null;
  /** Rows read at or above the horizon, by id, with their transaction id (pruned as the horizon passes). */
  let seen = new Map<string, bigint>();
  /**
   * When the last successful read began (before its snapshot was taken): the compaction folds a row
   * only once its transaction ended CONTENT_LOG_KEEP_SECONDS before, so a feed whose reads begin at
   * most STALE_READ_MS apart reads every row before it goes.
   */
  let lastRead = 0;
  let readSession = -1;
  const readLog = async () => {
    const database = opts.database;
    if (!database || contentSubscribers.size === 0 || !listener.live) return;
    const session = listener.session;
    const began = Date.now();
    try {
      if (readSession !== session || began - lastRead > STALE_READ_MS) {
        // A new session, or reads too far apart: anything may have been missed. Start from now.
        horizon = null;
        seen = new Map();
        readSession = session;
      }
      const first = horizon === null;
      const [r] = await database.query<LogRead>(READ_LOG_SQL, [horizon, [...seen.keys()]], { name: 'cms_change_log_read' });
      if (listener.session !== session) return;
      lastRead = began;
      const next = BigInt(r.horizon);
      for (const [id, xid] of r.rows) seen.set(id, BigInt(xid));
      for (const [id, xid] of seen) if (xid < next) seen.delete(id);
      horizon = r.horizon;
      // A first read sees nothing before its horizon: what was read from the database before it
      // (authentications in flight included) cannot be vouched for.
      if (first) emit({ kind: 'all' });
      for (const [projectId, generation, collections] of r.changes) emitContent({ projectId, generation: BigInt(generation), collections, lsn: r.lsn });
    } catch (err) {
      log.warn({ err: err instanceof Error ? err.message : undefined }, 'could not read the change log');
      horizon = null;
      emit({ kind: 'all' });
    }
  };
  // One read at a time, starts at least `gap` apart; a wake-up during a read, or before the gap has
  // passed, asks for one more as soon as both allow.
  const gap = opts.gapMs ?? READ_GAP_MS;
  const reader = {
    running: false,
    again: false,
    started: 0,
    delayed: undefined as ReturnType<typeof setTimeout> | undefined,
    current: Promise.resolve(),
    wake(): void {
      if (closed || this.delayed) return;
      if (this.running) {
        this.again = true;
        return;
      }
      const wait = this.started + gap - Date.now();
      if (wait > 0) {
        this.delayed = setTimeout(() => {
          this.delayed = undefined;
          this.wake();
        }, wait);
        return;
      }
      this.running = true;
      this.started = Date.now();
      this.current = readLog().finally(() => {
        this.running = false;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
    },
    stop(): void {
      if (this.delayed) clearTimeout(this.delayed);
      this.delayed = undefined;
    },
  };
  const handlers: ListenHandlers = {
    notify: (payload) => {
      const change = parseChange(payload);
      if (change === 'hint') reader.wake();
      else emit(change);
    },
    live: () => reader.wake(),
    lost: () => emit({ kind: 'all' }),
  };
  // A connection string: a LISTEN connection of the feed's own. Embedded PGlite: its owner's listener (Database.listen).
  const listener =
    typeof source === 'string'
      ? listenOn(source, CHANGES_CHANNEL, log, handlers, { minRetryMs: opts.minRetryMs, maxRetryMs: opts.maxRetryMs, applicationName: CHANGE_FEED_APPLICATION })
      : source(CHANGES_CHANNEL, handlers);
  const timer = opts.database ? setInterval(() => reader.wake(), opts.pollMs ?? 100) : undefined;
  timer?.unref();
  return {
    get live() {
      // Content holders may answer only while the log is being read.
      return listener.live && (contentSubscribers.size === 0 || !opts.database || Date.now() - lastRead <= STALE_READ_MS);
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
      reader.wake();
      return () => contentSubscribers.delete(fn);
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      reader.stop();
      await listener.close();
      await reader.current;
      subscribers.clear();
      contentSubscribers.clear();
    },
  };
}
