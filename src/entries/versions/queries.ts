import type { EntryVersion } from '../../db/generated/prisma/client.ts';
import type { Tx } from '../../db/client.ts';
import { Prisma } from '../../db/client.ts';
import type { VersionRecord } from './serialize.ts';

interface VersionRow {
  id: number;
  uuid: string;
  entry_id: number;
  version_number: number;
  label: string | null;
  description: string | null;
  locale: string;
  translation_group_id: number | null;
  snapshot: unknown;
  published_at: Date | null;
  created_at: Date;
  updated_at: Date;
  created_by_token_id: number | null;
  token_name: string | null;
  current_version_id: number | null;
  collection_id: number;
}

export interface VersionQuery {
  entryIds: number[];
  /** Only these version numbers (detail, GraphQL `version(number)`). */
  numbers?: number[];
  /** Only versions numbered below this (keyset paging, newest first). */
  before?: number;
  /** At most this many per entry, newest first. */
  perEntry?: number;
  /** The list item never carries the snapshot; skip reading the JSON when it is not needed. */
  withSnapshot?: boolean;
}

/**
 * Versions with their creator and the entry's current pointer, in ONE statement: a single statement
 * sees one snapshot of the database, so `is_current_published` is true for exactly one listed
 * version even while another process publishes. Ordered by entry, then version number descending.
 */
export async function fetchVersions(db: Tx, q: VersionQuery): Promise<VersionRecord[]> {
  if (q.entryIds.length === 0) return [];
  const conditions = [Prisma.sql`v.entry_id = ANY(${q.entryIds}::int[])`];
  if (q.numbers) conditions.push(Prisma.sql`v.version_number = ANY(${q.numbers}::int[])`);
  if (q.before !== undefined) conditions.push(Prisma.sql`v.version_number < ${q.before}`);
  const snapshot = q.withSnapshot ? Prisma.sql`v.snapshot` : Prisma.sql`NULL::jsonb AS snapshot`;
  const ranked = Prisma.sql`
    SELECT v.id, v.uuid::text AS uuid, v.entry_id, v.version_number, v.label, v.description, v.locale,
      v.translation_group_id, ${snapshot}, v.published_at, v.created_at, v.updated_at, v.created_by_token_id,
      t.name AS token_name, v.collection_id,
      -- Correlated on the version's own collection: pruned to that partition when it runs.
      (SELECT e.published_version_id FROM entries e WHERE e.collection_id = v.collection_id AND e.id = v.entry_id) AS current_version_id,
      row_number() OVER (PARTITION BY v.entry_id ORDER BY v.version_number DESC) AS rank
    FROM entry_versions v
    LEFT JOIN api_tokens t ON t.id = v.created_by_token_id
    WHERE ${Prisma.join(conditions, ' AND ')}`;
  const rows = await db.$queryRaw<VersionRow[]>(
    q.perEntry !== undefined
      ? Prisma.sql`SELECT * FROM (${ranked}) ranked WHERE rank <= ${q.perEntry} ORDER BY entry_id, version_number DESC`
      : Prisma.sql`${ranked} ORDER BY v.entry_id, v.version_number DESC`,
  );
  return rows.map(toRecord);
}

/** Version counts per entry (GraphQL totalCount). */
export async function countVersions(db: Tx, entryIds: number[]): Promise<Map<number, number>> {
  if (entryIds.length === 0) return new Map();
  const rows = await db.$queryRaw<{ entry_id: number; n: number }[]>(Prisma.sql`
    SELECT entry_id, count(*)::int AS n FROM entry_versions WHERE entry_id = ANY(${entryIds}::int[]) GROUP BY entry_id`);
  return new Map(rows.map((r) => [r.entry_id, r.n]));
}

function toRecord(r: VersionRow): VersionRecord {
  const row: EntryVersion = {
    id: r.id,
    uuid: r.uuid,
    entryId: r.entry_id,
    collectionId: r.collection_id,
    versionNumber: r.version_number,
    label: r.label,
    description: r.description,
    locale: r.locale,
    translationGroupId: r.translation_group_id,
    snapshot: (r.snapshot ?? null) as EntryVersion['snapshot'],
    publishedAt: r.published_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    createdByTokenId: r.created_by_token_id,
  };
  return {
    row,
    createdBy: r.created_by_token_id !== null && r.token_name !== null ? { id: r.created_by_token_id, name: r.token_name } : null,
    currentVersionId: r.current_version_id,
    collectionId: r.collection_id,
  };
}
