import pg from 'pg';
import type { Logger } from '../logger.ts';

export interface ListenHandlers {
  /** A NOTIFY on the channel (delivered at the sender's commit). */
  notify(payload: string | undefined): void;
  /** LISTEN is in place (first time or after a reconnect): anything sent while nobody listened was missed. */
  live?(): void;
  /** The connection is gone; notifications may be missed until `live` again. */
  lost?(): void;
}

/** Opens a listener on `channel`: listenOn over a connection string, or an embedded database's own (src/db/embedded-notifications.ts). */
export type Listen = (channel: string, handlers: ListenHandlers) => PgListener;

export interface PgListener {
  /** True while LISTEN is in place. */
  readonly live: boolean;
  /**
   * Moves on every connect and every loss. Work that began in one session and ends in another may
   * have missed a notification in the gap.
   */
  readonly session: number;
  /** Settles after the first attempt to listen, whether it succeeded or will be retried. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * One dedicated connection holding `LISTEN channel`, reconnecting with backoff (doubling from
 * `minRetryMs` to `maxRetryMs`) when it drops. TCP keepalive probes after 10 s idle instead of the
 * OS default of two hours: a listening connection is idle most of the time, and a dead peer must be
 * noticed. Used by the change feed (src/db/change-feed.ts) and the outbox dispatcher.
 */
export function listenOn(
  connectionString: string,
  channel: string,
  log: Logger,
  handlers: ListenHandlers,
  opts: { minRetryMs?: number; maxRetryMs?: number; applicationName?: string } = {},
): PgListener {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
  const minRetry = opts.minRetryMs ?? 100;
  const maxRetry = opts.maxRetryMs ?? 5000;
  let client: pg.Client | undefined;
  let live = false;
  let session = 0;
  let closed = false;
  let retryMs = minRetry;
  let timer: NodeJS.Timeout | undefined;
  let settleReady!: () => void;
  const ready = new Promise<void>((resolve) => (settleReady = resolve));

  const lost = (which: pg.Client, err?: unknown) => {
    if (client !== which) return;
    client = undefined;
    const wasLive = live;
    live = false;
    session++;
    settleReady();
    which.removeAllListeners('notification');
    which.end().catch(() => {});
    handlers.lost?.();
    if (closed) return;
    log.warn({ channel, err: err instanceof Error ? err.message : undefined }, wasLive ? 'LISTEN connection lost; reconnecting' : 'could not LISTEN; retrying');
    timer = setTimeout(connect, retryMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, maxRetry);
  };

  function connect(): void {
    if (closed) return;
    const c = new pg.Client({ connectionString, keepAlive: true, keepAliveInitialDelayMillis: 10_000, application_name: opts.applicationName });
    client = c;
    c.on('notification', (msg) => {
      if (client === c && msg.channel === channel) handlers.notify(msg.payload);
    });
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c));
    c.connect()
      .then(() => c.query(`LISTEN ${channel}`))
      .then(() => {
        if (client !== c || closed) return;
        session++;
        live = true;
        retryMs = minRetry;
        settleReady();
        handlers.live?.();
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
    ready,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      if (c) lost(c);
      settleReady();
    },
  };
}
