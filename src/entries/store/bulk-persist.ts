import { Prisma, type Tx } from '../../db/client.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import { ENTRY_COLUMNS, sameCollection } from './rows.ts';
import type { EntryRow } from '../types.ts';

/** Whether unpublishing the row changes anything (the single unpublish is a no-op otherwise). */
export const isPublished = (row: EntryRow): boolean => row.state !== 'draft' || row.publishedVersionId !== null || row.publishedData !== null;

/**
 * Unpublishes many entries with one UPDATE, as the single unpublish does for one: back to draft,
 * pointer and published copy cleared, every version kept. The rows must already be locked.
 */
export async function unpublishRows(tx: Tx, rows: Array<Pick<EntryRow, 'id' | 'collectionId'>>): Promise<EntryRow[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  // The collections name the partitions the statement is planned over.
  const collections = [...new Set(rows.map((r) => r.collectionId))];
  return tx.$queryRaw<EntryRow[]>(Prisma.sql`
    UPDATE entries AS e SET state = 'draft', published_version_id = NULL, published_version_number = NULL,
      published_data = NULL, updated_at = now()
    WHERE e.collection_id = ANY(${collections}::int[]) AND e.id = ANY(${ids}::int[])
    RETURNING ${ENTRY_COLUMNS}`);
}

/**
 * Trashes the live entries of the collection with these UUIDs in one statement (rows locked in id
 * order first, like every other multi-row write, so concurrent batches queue instead of deadlocking).
 * Returns the trashed rows; UUIDs that name no live entry are skipped.
 */
export async function trashByUuid(tx: Tx, collection: CollectionSchema, uuids: string[]): Promise<EntryRow[]> {
  return tx.$queryRaw<EntryRow[]>(Prisma.sql`
    WITH locked AS (
      SELECT id FROM entries
      WHERE uuid = ANY(${uuids}::uuid[]) AND ${sameCollection('collection_id', collection.id)} AND deleted_at IS NULL
      ORDER BY id FOR UPDATE
    )
    UPDATE entries AS e SET deleted_at = now(), updated_at = now()
    FROM locked WHERE ${sameCollection('e.collection_id', collection.id)} AND e.id = locked.id
    RETURNING ${ENTRY_COLUMNS}`);
}

/** A deleted row as its `content.deleted` names it: ids, and its revision and published version (src/events/outbox.ts, `removed`). */
export type DestroyedRow = Pick<EntryRow, 'uuid' | 'locale' | 'publishedVersionId'> & { revision: number };

/** The RETURNING list of a DELETE of `entries AS e` that yields DestroyedRow. */
export const DESTROYED_COLUMNS = Prisma.sql`e.uuid::text AS uuid, e.locale, e.revision, e.published_version_id AS "publishedVersionId"`;

/**
 * Removes the entries of the collection with these UUIDs for good, trashed ones included (as the
 * single force delete does); their versions go with them (the entries_versions_cascade_x trigger).
 */
export async function destroyByUuid(tx: Tx, collection: CollectionSchema, uuids: string[]): Promise<DestroyedRow[]> {
  return tx.$queryRaw<DestroyedRow[]>(Prisma.sql`
    WITH locked AS (
      SELECT id FROM entries
      WHERE uuid = ANY(${uuids}::uuid[]) AND ${sameCollection('collection_id', collection.id)}
      ORDER BY id FOR UPDATE
    )
    DELETE FROM entries AS e USING locked WHERE ${sameCollection('e.collection_id', collection.id)} AND e.id = locked.id
    RETURNING ${DESTROYED_COLUMNS}`);
}
