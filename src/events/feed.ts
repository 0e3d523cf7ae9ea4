import type { Database } from '../db/client.ts';
import { RELEASE_EVENTS } from './names.ts';

/**
 * The read side of the outbox for readers that follow it in id order without claiming rows (live
 * subscriptions; ./port.ts). Every read is one statement over `Database`; which rows are content
 * changes, and what to make of them, is the reader's business.
 *
 * `E` is the type the reader gives the stored entry resource (`payload.content_entry`): the writers
 * own that shape, and this module imports no writer (the writers import it, so that would be a cycle).
 */
export interface OutboxRow<E> {
  /** The outbox id as text (a bigint); null only on the snapshot row of `rowsAfter` when nothing follows. */
  id: string | null;
  project_id: number;
  event: string;
  collection_id: number | null;
  entry_uuid: string | null;
  locale: string | null;
  entry: E | null;
  /**
   * The entry row as the change's commit left it (`payload.committed`, src/events/outbox.ts): null for
   * `content.deleted` and events written without an entry row.
   */
  committed: Record<string, unknown> | null;
  /**
   * The entry's revision and `updated_at` as the change's commit left them (`payload.revision`,
   * `payload.updated_at`: its order among the entry's events); null on rows written before they were
   * recorded and on events of no entry.
   */
  revision: number | null;
  updated_at: string | null;
  /** A `content.deleted`'s deleted row (`payload.removed`: revision, published_version_id); null otherwise. */
  removed: { revision: number; published_version_id: number | null } | null;
  /** The Release of a `release.*` event (`payload.release`, as its commit wrote it); null for other events. */
  release: unknown;
  created_at: Date;
}

/** A row of `rowsAfter`, with the bounds of the statement's snapshot. */
export interface SnapshotRow<E> extends OutboxRow<E> {
  snap_xmin: string;
  snap_xmax: string;
}

/**
 * Outbox rows after `$1`, in id order, and the statement's snapshot bounds (one statement, one
 * snapshot, so "row absent" and "xmin" describe the same moment). The LEFT JOIN keeps the snapshot row
 * when no outbox row matches.
 *
 * `snap_xmin` leaves out transactions of other databases of the cluster: they cannot write this
 * outbox, and one slow statement there (a CREATE/DROP DATABASE takes seconds) held every gap here and
 * delayed every subscriber by as much (bench/live.ts). Only xids pg_stat_activity names as another
 * database's are left out, so one it cannot name (ended meanwhile, hidden by privileges, a
 * subtransaction) still counts: the error is on the side of waiting, never of skipping an id.
 */
const ROWS_AFTER_SQL = `
  SELECT o.id::text AS id, o.project_id, o.event, o.collection_id, o.entry_uuid::text AS entry_uuid,
         o.payload->>'locale' AS locale, o.payload->'content_entry' AS entry, o.payload->'committed' AS committed,
         (o.payload->>'revision')::int AS revision, o.payload->>'updated_at' AS updated_at, o.payload->'removed' AS removed,
         o.payload->'release' AS release, o.created_at,
         coalesce((SELECT min(x) FROM pg_snapshot_xip(s.snap) x
                    WHERE (x::text::bigint % 4294967296) NOT IN (SELECT a.backend_xid::text::bigint FROM pg_stat_activity a
                                                                  WHERE a.backend_xid IS NOT NULL AND a.datid IS NOT NULL
                                                                    AND a.datname IS DISTINCT FROM current_database())),
                  pg_snapshot_xmax(s.snap))::text AS snap_xmin,
         pg_snapshot_xmax(s.snap)::text AS snap_xmax
    FROM (SELECT pg_current_snapshot() AS snap) s
    LEFT JOIN LATERAL (SELECT * FROM outbox_events WHERE id > $1 ORDER BY id LIMIT $2) o ON true
   ORDER BY o.id`;

/** Up to `limit` rows after id `after`, with the snapshot bounds (at least one row, the snapshot's). */
export const rowsAfter = <E>(database: Database, after: number, limit: number): Promise<SnapshotRow<E>[]> =>
  database.query<SnapshotRow<E>>(ROWS_AFTER_SQL, [after, limit], { name: 'live_outbox_after' });

/** The highest outbox id written so far (0 when empty): where a reader starting now begins. */
export async function outboxEnd(database: Database): Promise<number> {
  const [row] = await database.query<{ max: string | null }>('SELECT max(id)::text AS max FROM outbox_events');
  return Number(row?.max ?? 0);
}

/**
 * Whether event `id` is still in the outbox and younger than `windowSeconds`: rows past a window may
 * be deleted by the outbox retention, so a gap after an older id could not be told apart.
 */
export async function isRecentEvent(database: Database, id: number, windowSeconds: number): Promise<boolean> {
  const [anchor] = await database.query<{ fresh: boolean }>(
    `SELECT created_at > now() - make_interval(secs => $2::int) AS fresh FROM outbox_events WHERE id = $1`,
    [id, windowSeconds],
  );
  return anchor?.fresh === true;
}

/** One collection's rows with `after < id <= upTo`, in id order, at most `limit`. */
export function collectionRowsBetween<E>(
  database: Database,
  q: { after: number; upTo: number; projectId: number; collectionId: number; limit: number },
): Promise<OutboxRow<E>[]> {
  // Ordered by the table's bigint id: a bare `id` would name the text column of the select list, and
  // 10 sorts before 9 as text (a resume across 9 → 10 replayed out of order).
  return database.query<OutboxRow<E>>(
    `SELECT id::text AS id, project_id, event, collection_id, entry_uuid::text AS entry_uuid, payload->>'locale' AS locale,
            payload->'content_entry' AS entry, payload->'committed' AS committed, (payload->>'revision')::int AS revision,
            payload->>'updated_at' AS updated_at, payload->'removed' AS removed, NULL::jsonb AS release, created_at
       FROM outbox_events WHERE id > $1 AND id <= $2 AND project_id = $3 AND collection_id = $4 ORDER BY outbox_events.id LIMIT $5`,
    [q.after, q.upTo, q.projectId, q.collectionId, q.limit],
  );
}

/** One project's `release.*` rows (they name no collection) with `after < id <= upTo`, in id order, at most `limit`. */
export function releaseRowsBetween<E>(database: Database, q: { after: number; upTo: number; projectId: number; limit: number }): Promise<OutboxRow<E>[]> {
  return database.query<OutboxRow<E>>(
    `SELECT id::text AS id, project_id, event, collection_id, entry_uuid::text AS entry_uuid, NULL::text AS locale,
            NULL::jsonb AS entry, NULL::jsonb AS committed, NULL::int AS revision, NULL::text AS updated_at, NULL::jsonb AS removed,
            payload->'release' AS release, created_at
       FROM outbox_events WHERE id > $1 AND id <= $2 AND project_id = $3 AND collection_id IS NULL AND event = ANY($4::text[])
      ORDER BY outbox_events.id LIMIT $5`,
    [q.after, q.upTo, q.projectId, [...RELEASE_EVENTS], q.limit],
  );
}
