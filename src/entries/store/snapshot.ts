import { Prisma } from '../../db/client.ts';

/** What a version holds: the published fields and the entry's locale and translation group when it was made. */
export interface Snapshot {
  fields: Record<string, unknown>;
  meta: { locale: string; translation_group_id: number | null };
}

/**
 * SQL text[] of the names whose values are password hashes in entries of the collection `collectionId`
 * (an SQL expression): password fields, soft-deleted ones too, unless a live field of another type has
 * taken the name. Password values never enter a snapshot or `published_data` (see mintVersion).
 */
export const passwordNames = (collectionId: Prisma.Sql): Prisma.Sql => Prisma.sql`
  ARRAY(
    SELECT DISTINCT f.name FROM fields f
    WHERE f.collection_id = ${collectionId} AND f.parent_field_id IS NULL AND f.type = 'password'
      AND NOT EXISTS (
        SELECT 1 FROM fields g
        WHERE g.collection_id = f.collection_id AND g.parent_field_id IS NULL AND g.deleted_at IS NULL
          AND g.name = f.name AND g.type <> 'password')
  )::text[]`;

/** passwordNames as SQL text, for statements sent as text (`Database.query`); `collectionId` is an SQL expression. */
export const passwordNamesSql = (collectionId: string): string => passwordNames(Prisma.raw(collectionId)).text;

export function withoutKeys(data: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  if (keys.length === 0) return data;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) if (!keys.includes(k)) out[k] = v;
  return out;
}
