/** An outbox row the stream released, as much of it as a resume needs. */
interface Released<C> {
  id: number;
  projectId: number;
  /** The row's collection; null for a project's release events (their own topic). */
  collectionId: number | null;
  /** Null for an event that is not a content change (it still counts towards LIVE_MAX_BACKLOG). */
  change: C | null;
  /** When it was released (Date.now()). */
  at: number;
}

/**
 * The outbox rows this replica's change stream (src/live/stream.ts) released lately, in id order, so that a resume reads
 * its backlog from memory instead of the database: a drop of many subscribers (a proxy restart, a
 * network blip) makes them all reconnect at once, and each read of its own backlog from the outbox
 * (hundreds of rows, each with the entry's JSON) competed with the live fan-out for the same CPU and
 * pool (bench/live.ts). The rows are the very ones live subscribers were sent, in the same order.
 *
 * `floor`: every row with an id above it, up to the stream's cursor, that has a collection or is a
 * release event is held here (other rows never match a subscription). Rows older than `keepMs`, or
 * past `maxRows`, are let go and the floor rises; a resume from below the floor reads the outbox as
 * before.
 */
export class RecentChanges<C> {
  private rows: Array<Released<C>> = [];
  /** Index of the oldest row still held (rows before it are let go, removed in bulk). */
  private head = 0;

  constructor(
    public floor: number,
    private readonly keepMs: number,
    private readonly maxRows: number,
  ) {}

  /** A released row (called in id order, right as the stream advances past it). */
  record(id: number, projectId: number, collectionId: number | null, change: C | null, now: number): void {
    this.rows.push({ id, projectId, collectionId, change, at: now });
    const cutoff = now - this.keepMs;
    while (this.head < this.rows.length && (this.rows.length - this.head > this.maxRows || this.rows[this.head].at < cutoff)) {
      this.floor = this.rows[this.head].id;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.rows.length) {
      this.rows = this.rows.slice(this.head);
      this.head = 0;
    }
  }

  /**
   * The rows of one collection (null: the project's release events) with ids in (after, upTo], at
   * most `limit` of them, or undefined when some may have been let go (`after` below the floor).
   */
  between(after: number, upTo: number, projectId: number, collectionId: number | null, limit: number): Array<C | null> | undefined {
    if (after < this.floor) return undefined;
    const rows = this.rows;
    let lo = this.head;
    let hi = rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (rows[mid].id <= after) lo = mid + 1;
      else hi = mid;
    }
    const out: Array<C | null> = [];
    for (let i = lo; i < rows.length && rows[i].id <= upTo && out.length < limit; i++) {
      const r = rows[i];
      if (r.projectId === projectId && r.collectionId === collectionId) out.push(r.change);
    }
    return out;
  }
}
