import { Prisma, type Tx } from '../../db/client.ts';
import type { EntryRow } from '../types.ts';

/**
 * The `entries` columns under Prisma's field names, so rows read with raw SQL (list queries, row locks)
 * have the same shape as Prisma's `Entry` and go through the same serializer.
 */
export const ENTRY_COLUMNS = Prisma.sql`
  e.id, e.uuid::text AS uuid, e.project_id AS "projectId", e.collection_id AS "collectionId", e.locale,
  e.translation_group_id AS "translationGroupId", e.state::text AS state, e.data, e.published_data AS "publishedData",
  e.published_version_id AS "publishedVersionId", e.published_version_number AS "publishedVersionNumber",
  e.last_version_number AS "lastVersionNumber", e.is_draft_dirty AS "isDraftDirty", e.published_at AS "publishedAt",
  e.published_updated_at AS "publishedUpdatedAt", e.created_at AS "createdAt", e.updated_at AS "updatedAt", e.deleted_at AS "deletedAt"`;

/**
 * `<column> = <collection id>`: names the partition (entries are partitioned by collection, so the
 * statement is planned over that one table) and, with the UUID, every column of the unique
 * `(uuid, collection_id)` index, whose exact one-row estimate the planner always prefers to walking
 * the collection through a per-field partial index, whatever the statistics say. The id is a literal,
 * so prepared statements (named per text, src/entries/reads/read-rows.ts) are planned over the
 * partition too; their number is bounded there.
 */
export const sameCollection = (column: string, collectionId: number): Prisma.Sql => {
  if (!/^[a-z_][a-z0-9_]{0,62}(\.[a-z_][a-z0-9_]{0,62})?$/.test(column)) throw new Error(`invalid SQL column ${column}`);
  // A literal, not a parameter: a prepared statement's generic plan then names the partition too.
  return Prisma.raw(`${column} = ${Math.trunc(collectionId)}`);
};

/** One live entry by UUID through the unique index (see sameCollection), or null. */
export async function liveEntryByUuid(db: Tx, collectionId: number, uuid: string, opts: { lock?: boolean; includeTrashed?: boolean } = {}): Promise<EntryRow | null> {
  const [row] = await selectEntries(
    db,
    Prisma.sql`e.uuid = ${uuid.toLowerCase()}::uuid AND ${sameCollection('e.collection_id', collectionId)}${opts.includeTrashed ? Prisma.empty : Prisma.sql` AND e.deleted_at IS NULL`}`,
    opts.lock ? Prisma.sql`FOR UPDATE` : Prisma.empty,
  );
  return row ?? null;
}

export async function selectEntries(db: Tx, where: Prisma.Sql, tail: Prisma.Sql = Prisma.empty): Promise<EntryRow[]> {
  return db.$queryRaw<EntryRow[]>(Prisma.sql`SELECT ${ENTRY_COLUMNS} FROM entries e WHERE ${where} ${tail}`);
}

/**
 * The row as a publish's mint leaves it (`fields` published as version `number`), for the writers
 * that mint in one statement and answer from memory instead of reading the row back;
 * published_updated_at is the trigger's (updated_at, as the pointer moves).
 */
export function mintedRow(row: EntryRow, prior: Pick<EntryRow, 'publishedAt'>, fields: Record<string, unknown>, versionId: number, number: number, now: Date): EntryRow {
  return {
    ...row,
    state: 'published',
    publishedData: fields as EntryRow['publishedData'],
    publishedVersionId: versionId,
    publishedVersionNumber: number,
    lastVersionNumber: number,
    isDraftDirty: false,
    publishedAt: prior.publishedAt ?? now,
    publishedUpdatedAt: now,
  };
}
