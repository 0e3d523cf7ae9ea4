import type { Database } from './client.ts';
import type { Logger } from '../logger.ts';
import { CHANGES_CHANNEL, CONTENT_HINT } from './change-feed.ts';

/**
 * The hint a writer sends after its commit, so that every replica reads the change log and the
 * outbox now rather than at its next poll. Sent as its own statement once the write has committed:
 * a NOTIFY inside the writing transaction takes a cluster-wide lock at its commit, which queued
 * every commit of every project behind each other. A hint carries nothing: readers find what
 * changed in the tables, past a snapshot horizon, so a lost or early hint delays and never loses.
 *
 * Coalesced per process: while one hint is in flight, any number of further writes ask for one more
 * after it, so a burst of writes costs a few statements, not one each.
 */
export class ChangeHints {
  private inFlight = false;
  private again = false;
  private closed = false;
  private current: Promise<void> = Promise.resolve();
  private readonly sql: string;

  /** `channels`: further channels to wake (the outbox's), beside the change feed's. */
  constructor(
    private readonly database: Database,
    private readonly log: Logger,
    channels: readonly string[] = [],
  ) {
    const notify = [`pg_notify('${CHANGES_CHANNEL}', '${CONTENT_HINT}')`, ...channels.map((c) => `pg_notify('${c}', '')`)];
    this.sql = `SELECT ${notify.join(', ')}`;
  }

  /** After a write committed: wake every reader (without waiting for it). */
  send(): void {
    if (this.closed) return;
    if (this.inFlight) {
      this.again = true;
      return;
    }
    this.inFlight = true;
    this.current = this.database
      .query(this.sql, [], { name: 'cms_change_hint' })
      .then(
        () => undefined,
        (err: unknown) => this.log.warn({ err: err instanceof Error ? err.message : undefined }, 'change hint failed; readers poll'),
      )
      .finally(() => {
        this.inFlight = false;
        if (this.again) {
          this.again = false;
          this.send();
        }
      });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.current;
  }
}
