import { Prisma, type Tx } from '../db/client.ts';
import type { EntryRow } from './types.ts';

/**
 * The `entries` columns under Prisma's field names, so rows read with raw SQL (list queries, row locks)
 * have the same shape as Prisma's `Entry` and go through the same serializer.
 */
export const ENTRY_COLUMNS = Prisma.sql`
  e.id, e.uuid::text AS uuid, e.project_id AS "projectId", e.collection_id AS "collectionId", e.locale,
  e.translation_group_id AS "translationGroupId", e.state::text AS state, e.data, e.published_data AS "publishedData",
  e.published_version_id AS "publishedVersionId", e.published_version_number AS "publishedVersionNumber",
  e.last_version_number AS "lastVersionNumber", e.is_draft_dirty AS "isDraftDirty", e.published_at AS "publishedAt",
  e.created_at AS "createdAt", e.updated_at AS "updatedAt", e.deleted_at AS "deletedAt"`;

export async function selectEntries(db: Tx, where: Prisma.Sql, tail: Prisma.Sql = Prisma.empty): Promise<EntryRow[]> {
  return db.$queryRaw<EntryRow[]>(Prisma.sql`SELECT ${ENTRY_COLUMNS} FROM entries e WHERE ${where} ${tail}`);
}
