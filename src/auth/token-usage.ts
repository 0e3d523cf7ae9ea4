import type { Database } from '../db/client.ts';
import type { Logger } from '../logger.ts';

declare module '../context.ts' {
  interface Services {
    /** Notes API token uses for `last_used_at`; absent where nothing authenticates tokens. */
    tokenUsage?: TokenUsage;
  }
}

/** A token's `last_used_at` is written at most this often per replica: "last used" to the minute. */
const RESOLUTION_MS = 60_000;
/** Uses noted within this long of each other go to the database in one statement. */
const FLUSH_DELAY_MS = 1_000;
/** Tokens remembered as recently written; beyond this the memory starts over (a few extra writes). */
const MAX_REMEMBERED = 100_000;

/**
 * Records when each API token was last used (`api_tokens.last_used_at`, shown by `cms token list`)
 * without putting a write on the request path: authentication notes the use in memory, and a
 * timer writes the uses of the last second in one UPDATE, each token at most once a minute per
 * replica. The column is outside the change-notification trigger's columns (migration
 * 20261123000000), so these writes drop no cached authentication. A failed write is logged and
 * forgotten: the next use a minute later writes again.
 */
export class TokenUsage {
  private readonly pending = new Map<number, Date>();
  private readonly written = new Map<number, number>();
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;

  constructor(
    private readonly database: Database,
    private readonly log: Logger,
  ) {}

  note(tokenId: number): void {
    const now = Date.now();
    const last = this.written.get(tokenId);
    if (last !== undefined && now - last < RESOLUTION_MS) return;
    if (this.written.size >= MAX_REMEMBERED) this.written.clear();
    this.written.set(tokenId, now);
    this.pending.set(tokenId, new Date(now));
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
      this.timer.unref();
    }
  }

  /** Writes what is pending now (tests, shutdown). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
    if (this.pending.size === 0) return;
    const ids = [...this.pending.keys()];
    const times = [...this.pending.values()];
    this.pending.clear();
    this.flushing = this.database
      .query(
        `UPDATE api_tokens t SET last_used_at = u.at
           FROM unnest($1::int[], $2::timestamptz[]) AS u(id, at)
          WHERE t.id = u.id AND (t.last_used_at IS NULL OR t.last_used_at < u.at)`,
        [ids, times],
      )
      .then(
        () => undefined,
        (err: unknown) => this.log.warn({ err: err instanceof Error ? err.message : String(err), tokens: ids.length }, 'token last-used times not written'),
      );
    await this.flushing;
  }

  async close(): Promise<void> {
    await this.flush();
  }
}
