import type { Database } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import type { EntryResource } from '../entries/types.ts';
import { CONTENT_EVENTS, RELEASE_EVENTS, type ContentEventName, type ReleaseEventName } from '../events/names.ts';
import { outboxEnd, rowsAfter, type OutboxRow as FeedRow, type SnapshotRow } from '../events/feed.ts';
import { SerialRunner } from '../serial-runner.ts';
import { RecentChanges } from './recent.ts';
import { stage, stagesOn } from './stages.ts';

/** One committed content change, as the outbox recorded it. */
export interface OutboxChange {
  /** The outbox id: the SSE event id a client resumes from. */
  id: number;
  projectId: number;
  collectionId: number;
  event: ContentEventName;
  entryUuid: string;
  locale: string;
  /** The entry as the write rendered it (draft view, visibility applied); absent for `content.deleted`. */
  entry: EntryResource | null;
  /** The entry row as this change's commit left it (password hashes left out); null for `content.deleted`. */
  committed: Record<string, unknown> | null;
  /**
   * The entry's revision after this change (moved by every write of the row, so it follows commit
   * order per entry; one past the deleted row's for `content.deleted`) and its `updated_at` (ISO);
   * null on outbox rows written before they were recorded.
   */
  revision: number | null;
  updatedAt: string | null;
  /** For `content.deleted`: whether the deleted row had published content (null: not recorded). */
  removedPublished: boolean | null;
  createdAt: Date;
}

/**
 * One committed `release.*` event of a project (docs/releases.md): the Release as its commit wrote
 * it. Not tied to a collection (`collectionId: null`): its subscribers follow the project's release
 * events as a topic of their own.
 */
export interface ReleaseChange {
  /** The outbox id: the SSE event id a client resumes from. */
  id: number;
  projectId: number;
  collectionId: null;
  event: ReleaseEventName;
  /** The Release resource the writer rendered (src/releases/model.ts), as JSON. */
  release: Record<string, unknown>;
  createdAt: Date;
}

/** What the stream releases to subscribers: content changes of a collection, and release events of a project. */
export type LiveChange = OutboxChange | ReleaseChange;

type OutboxRow = SnapshotRow<EntryResource>;

const isContentEvent = (e: string): e is ContentEventName => (CONTENT_EVENTS as readonly string[]).includes(e);
const isReleaseEvent = (e: string): e is ReleaseEventName => (RELEASE_EVENTS as readonly string[]).includes(e);

export const toChange = (r: FeedRow<EntryResource>): OutboxChange | null =>
  r.id !== null && r.collection_id !== null && r.entry_uuid !== null && isContentEvent(r.event)
    ? {
        id: Number(r.id),
        projectId: r.project_id,
        collectionId: r.collection_id,
        event: r.event,
        entryUuid: r.entry_uuid,
        locale: r.locale ?? '',
        entry: r.entry && typeof r.entry === 'object' ? r.entry : null,
        committed: r.committed && typeof r.committed === 'object' ? r.committed : null,
        revision: r.revision ?? null,
        updatedAt: r.updated_at ?? null,
        removedPublished: r.removed && typeof r.removed === 'object' ? r.removed.published_version_id != null : null,
        createdAt: r.created_at,
      }
    : null;

export const toReleaseChange = (r: FeedRow<EntryResource>): ReleaseChange | null =>
  r.id !== null && r.collection_id === null && isReleaseEvent(r.event) && r.release && typeof r.release === 'object'
    ? { id: Number(r.id), projectId: r.project_id, collectionId: null, event: r.event, release: r.release as Record<string, unknown>, createdAt: r.created_at }
    : null;

/** Any row a live subscriber may be sent, or null. */
export const toLiveChange = (r: FeedRow<EntryResource>): LiveChange | null => toChange(r) ?? toReleaseChange(r);

interface Gap {
  /** The snapshot's xmax when the id was first seen missing: every transaction that could hold it has an xid below. */
  xmax: bigint;
  since: number;
}

export interface ChangeStreamOptions {
  /** Rows read per statement. */
  batch?: number;
  /** How soon to look again while an id below a visible one is still missing (an uncommitted writer). */
  gapRetryMs?: number;
  /** A missing id is given up after this long even if its transaction seems open (a stuck session). */
  gapTimeoutMs: number;
  /** How long released rows stay in `recent` for resumes (ms), and how many at most. */
  recentMs?: number;
  recentRows?: number;
  /** Called as each read of the outbox (after `cursor`) is sent: work to run beside it (src/live/prefetch.ts). */
  beside?: (after: number) => void;
}

/**
 * The process's view of the outbox as one ordered stream. Outbox ids come from a sequence, so a
 * transaction can commit id 8 while id 7 is still open: reading "everything after the last id I saw"
 * would skip 7 for ever. The stream therefore releases ids strictly in order and holds back behind a
 * missing id until it appears or is certainly gone: PostgreSQL's snapshot says so once every
 * transaction that was open when the id was first seen missing has ended (`pg_snapshot_xmin` has
 * passed the `pg_snapshot_xmax` noted then), i.e. its writer rolled back. Strict order is what makes
 * `cursor` exact: every id at or below it was released or never committed, which is what resume
 * (src/live/hub.ts) relies on.
 */
export class ChangeStream {
  /** Every id at or below has been released (or never committed). */
  cursor = 0;
  /** What was released lately, for resumes (src/live/resume.ts); set by `start`. */
  recent?: RecentChanges<LiveChange>;
  private readonly gaps = new Map<number, Gap>();
  private closed = false;
  private readonly runner = new SerialRunner(() => this.drain(), () => this.closed);
  private retry?: NodeJS.Timeout;
  private readonly batch: number;
  private readonly gapRetryMs: number;

  constructor(
    private readonly database: Database,
    private readonly log: Logger,
    private readonly release: (changes: LiveChange[]) => void,
    private readonly opts: ChangeStreamOptions,
  ) {
    this.batch = opts.batch ?? 1000;
    this.gapRetryMs = opts.gapRetryMs ?? 20;
  }

  /** Starts at the outbox's current end: a subscriber sees what commits after it (or resumes explicitly). */
  async start(): Promise<void> {
    this.cursor = await outboxEnd(this.database);
    this.recent = new RecentChanges(this.cursor, this.opts.recentMs ?? 60_000, this.opts.recentRows ?? 20_000);
  }

  /** Reads what committed since the last pass (now, or right after the pass in progress). */
  wake(): void {
    if (stagesOn) this.wokeAt ??= Date.now();
    this.runner.wake();
  }

  /** The first wake-up since the last pass began (LIVE_STAGE_LOG only). */
  private wokeAt?: number;

  private async drain(): Promise<void> {
    try {
      for (;;) {
        const woke = this.wokeAt;
        this.wokeAt = undefined;
        const began = stagesOn ? Date.now() : 0;
        const reading = rowsAfter<EntryResource>(this.database, this.cursor, this.batch);
        try {
          this.opts.beside?.(this.cursor);
        } catch (err) {
          // Its failure must not leave the read unawaited; the pass goes on without it.
          this.log.warn({ err: (err as Error).message }, 'live change stream: work beside the read failed');
        }
        const rows = await reading;
        const read = stagesOn ? Date.now() : 0;
        const { released, blocked, full } = this.advance(rows);
        if (stagesOn) stage({ k: 'pass', woke, began, read, seen: rows.flatMap((r) => (r.id === null ? [] : [Number(r.id)])), rel: released.map((c) => c.id) });
        if (released.length) this.release(released);
        if (blocked) {
          clearTimeout(this.retry);
          this.retry = setTimeout(() => this.wake(), this.gapRetryMs);
          this.retry.unref();
          return;
        }
        if (!full || this.closed) return;
      }
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'live change stream read failed; will retry');
      clearTimeout(this.retry);
      this.retry = setTimeout(() => this.wake(), 500);
      this.retry.unref();
    }
  }

  private advance(rows: OutboxRow[]): { released: LiveChange[]; blocked: boolean; full: boolean } {
    const released: LiveChange[] = [];
    const first = rows[0];
    if (!first) return { released, blocked: false, full: false };
    const xmin = BigInt(first.snap_xmin);
    const xmax = BigInt(first.snap_xmax);
    const now = Date.now();
    const present = rows.filter((r) => r.id !== null);
    // Every id missing below a visible one is noted against this snapshot now, not when the stream
    // reaches it: noted one at a time, each gap would wait for the writers open when the previous one
    // closed, and under steady overlapping writes the stream fell seconds behind (bench/live.ts).
    const highest = present.length ? Number(present[present.length - 1].id) : this.cursor;
    const visible = new Set(present.map((r) => Number(r.id)));
    for (let missing = this.cursor + 1; missing < highest; missing++) {
      if (!visible.has(missing) && !this.gaps.has(missing)) this.gaps.set(missing, { xmax, since: now });
    }
    for (const row of present) {
      const id = Number(row.id);
      while (this.cursor + 1 < id) {
        const missing = this.cursor + 1;
        let gap = this.gaps.get(missing);
        if (!gap) {
          gap = { xmax, since: now };
          this.gaps.set(missing, gap);
        }
        // The short minimum age covers a writer that drew the id before its transaction had an xid.
        const gone = (xmin >= gap.xmax && now - gap.since >= 50) || now - gap.since >= this.opts.gapTimeoutMs;
        if (!gone) return { released, blocked: true, full: false };
        if (xmin < gap.xmax) this.log.warn({ outboxId: missing }, 'live change stream gave up waiting for an outbox id');
        this.gaps.delete(missing);
        this.cursor = missing;
      }
      this.gaps.delete(id);
      this.cursor = id;
      const change = toLiveChange(row);
      if (change) released.push(change);
      // A collection's every row counts towards a resume's backlog (its other events as null); of the
      // rows without a collection only release events have subscribers.
      if (row.collection_id !== null || change) this.recent?.record(id, row.project_id, row.collection_id, change, now);
    }
    return { released, blocked: false, full: present.length >= this.batch };
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
  }
}
