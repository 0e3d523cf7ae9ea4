import type { Ctx } from '../../context.ts';
import type { TxQuery } from '../../db/client.ts';
import { eventsCte, insertVersions, pruneVersions, writeWithEvents, writeWithEventsIfAccepted } from './version-statement.ts';

/**
 * The bulk update that needs no lock (src/entries/operations/update-without-lock.ts) as one statement:
 * every item's new draft, and for the items that publish their version, the retention prune, the
 * pointer and the published copy, plus every event, written only if each entry row is still the
 * version that was read (`xmin`). Built from the fragments of ./version-statement.ts, so a version's
 * columns and retention are the rules every other writer follows.
 *
 * A draft save followed by a publish used to update the row twice in one transaction: two heap tuples,
 * two passes over every filter and search index of the collection, the search and generation triggers
 * twice. One UPDATE that leaves the row as the mint would leave it writes each once.
 */

/** One item: the draft to store and, when it publishes, the version computed from the row read. */
export interface UnlockedUpdateRow {
  entry_id: number;
  xmin: string;
  data: unknown;
  locale: string;
  /** Null for an item that only saves its draft; then the next four are null too. */
  version_id: number | null;
  version_uuid: string | null;
  number: number | null;
  snapshot: unknown;
  /** The published copy: the draft without password values. */
  fields: unknown;
  /** Versions numbered at or below this go (retentionFloor). */
  floor: number | null;
}

/**
 * Rows are locked in id order, and only those whose `xmin` is unchanged; unless every item's row is
 * (`$2` of them), no CTE writes anything. A publishing item's UPDATE is what `movePointers` in
 * ./version-statement.ts leaves, plus the new draft and locale; the others get what a draft save leaves.
 * $1 the rows, $2 their number, $3 time, $4 token, $5 project, $6 source, $7-$8 the events, $9 the
 * collection (bound, and the statement unnamed: planned with it, over that collection's partition alone).
 */
const UPDATE_IF_UNCHANGED = `WITH input AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(entry_id int, xmin text, data jsonb, locale text, version_id int, version_uuid uuid,
      number int, snapshot jsonb, fields jsonb, floor int)
  ),
  l AS (
    SELECT e.id FROM entries e JOIN input i ON i.entry_id = e.id
    WHERE e.collection_id = $9::int AND e.xmin = i.xmin::xid AND e.deleted_at IS NULL
    ORDER BY e.id
    FOR UPDATE OF e
  ),
  ok AS (
    SELECT count(*) = $2::int AS all_unchanged FROM l
  ),
  u AS (
    UPDATE entries AS t SET
      data = i.data,
      locale = i.locale,
      state = CASE WHEN i.version_id IS NULL THEN t.state ELSE 'published' END,
      published_data = CASE WHEN i.version_id IS NULL THEN t.published_data ELSE i.fields END,
      published_version_id = COALESCE(i.version_id, t.published_version_id),
      published_version_number = CASE WHEN i.version_id IS NULL THEN t.published_version_number ELSE i.number END,
      last_version_number = COALESCE(i.number, t.last_version_number),
      is_draft_dirty = i.version_id IS NULL,
      published_at = CASE WHEN i.version_id IS NULL THEN t.published_at ELSE COALESCE(t.published_at, $3::timestamptz) END,
      updated_at = $3::timestamptz
    FROM input i
    WHERE t.collection_id = $9::int AND t.id = i.entry_id AND (SELECT all_unchanged FROM ok)
    RETURNING t.*
  ),
  v AS (
    ${insertVersions({
      from: 'input i JOIN u ON u.id = i.entry_id',
      where: 'i.version_id IS NOT NULL',
      id: 'i.version_id',
      uuid: 'i.version_uuid',
      entryId: 'i.entry_id',
      collection: '$9::int',
      number: 'i.number',
      locale: 'u.locale',
      group: 'u.translation_group_id',
      snapshot: 'i.snapshot',
      at: '$3::timestamptz',
      token: '$4::int',
    })}
  ),
  pruned AS (
    ${pruneVersions('input i', 'i.entry_id', 'i.floor')} AND i.version_id IS NOT NULL AND (SELECT all_unchanged FROM ok)
  ),
  ${eventsCte({ project: '$5::int', source: '$6::text', rows: '$7', entries: '$8' }, 'u', 'EXISTS (SELECT 1 FROM u)')}
  SELECT 1 FROM u`;

export interface UnlockedUpdate {
  collectionId: number;
  rows: UnlockedUpdateRow[];
  at: Date;
  tokenId: number | null;
  /** contentEventParams of every event of the request. */
  events: { rows: string; entries: string };
}

const updateParams = (ctx: Ctx, u: UnlockedUpdate): unknown[] => [
  JSON.stringify(u.rows), u.rows.length, u.at.toISOString(), u.tokenId, ctx.project.id, ctx.source, u.events.rows, u.events.entries, u.collectionId,
];

/** The update as one statement, if no row changed since it was read: true when it was written (events included). */
export function updateIfUnchanged(ctx: Ctx, u: UnlockedUpdate): Promise<boolean> {
  return writeWithEvents(ctx, UPDATE_IF_UNCHANGED, updateParams(ctx, u));
}

/**
 * The same statement in a transaction of its own, then `accept` in that transaction (for unique
 * fields: the write-scope lock and the recheck, src/entries/values/unique-recheck.ts), committed when
 * it answers true and rolled back, events included, when it answers false. `changed`: a row moved since
 * it was read and nothing was written (read again); `refused`: nothing was written (the caller runs the
 * locked transaction, which names the item and field).
 */
export function updateIfUnchangedAndAccepted(ctx: Ctx, u: UnlockedUpdate, accept: (query: TxQuery) => Promise<boolean>): Promise<'written' | 'changed' | 'refused'> {
  return writeWithEventsIfAccepted(ctx, UPDATE_IF_UNCHANGED, updateParams(ctx, u), undefined, accept);
}
