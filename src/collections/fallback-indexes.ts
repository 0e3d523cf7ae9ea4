import type { Database, Tx } from '../db/client.ts';
import { fieldIndexPredicate } from './field-indexes.ts';

/**
 * The translation-group indexes of a collection that locale fallback reads use
 * (src/entries/reads/fallback.ts): `(translation_group_id, locale, id)`, one per view, partial on exactly
 * the rows a list of that view reads, as the per-field and search indexes are (field-indexes.ts).
 *
 * - A fallback list keeps an entry when no entry of its group in an earlier chain locale is visible:
 *   per row, that is one descent of this index and an index-only look at the group's few entries,
 *   where the table-wide group index needs a heap visit per sibling to check collection, locale and
 *   state.
 * - The total of an unfiltered fallback list is the number of groups the chain reaches: one
 *   index-only pass in group order, with no hash of a million rows.
 *
 * Per collection, so the build is CONCURRENTLY after a schema change (writers of a large collection
 * are not blocked) and the index holds no other collection's rows.
 */

type View = 'd' | 'p';
const VIEWS: ReadonlyArray<[View, 'data' | 'published_data']> = [
  ['d', 'data'],
  ['p', 'published_data'],
];

export const fallbackIndexName = (collectionId: number, view: View): string => `entries_c${Math.trunc(collectionId)}_fallback_${view}_x`;

export function fallbackIndexStatements(collectionId: number, opts: { concurrently?: boolean } = {}): string[] {
  const how = opts.concurrently ? 'CONCURRENTLY IF NOT EXISTS' : 'IF NOT EXISTS';
  return VIEWS.map(([view, column]) =>
    `CREATE INDEX ${how} "${fallbackIndexName(collectionId, view)}" ON "entries" ("translation_group_id", "locale", "id") WHERE ${fieldIndexPredicate(collectionId, column)}`,
  );
}

export const dropFallbackIndexStatements = (collectionId: number): string[] =>
  VIEWS.map(([view]) => `DROP INDEX IF EXISTS "${fallbackIndexName(collectionId, view)}"`);

const EXISTING = `SELECT id FROM collections WHERE id = ANY($1::int[])`;

function statementsFor(ids: number[], existing: Set<number>, concurrently: boolean): string[] {
  return ids.flatMap((id) => (existing.has(id) ? fallbackIndexStatements(id, { concurrently }) : dropFallbackIndexStatements(id)));
}

/**
 * After a schema change commits: builds the indexes of the collections among `collectionIds`
 * (CONCURRENTLY on PostgreSQL; IF NOT EXISTS makes it a no-op for a collection that has them) and
 * drops those of collections that no longer exist.
 */
export async function syncFallbackIndexes(database: Database, collectionIds: Iterable<number>): Promise<void> {
  const ids = [...new Set(collectionIds)];
  if (ids.length === 0) return;
  const existing = new Set((await database.query<{ id: number }>(EXISTING, [ids])).map((r) => r.id));
  for (const stmt of statementsFor(ids, existing, database.kind === 'postgres')) await database.runScript(stmt);
}

/** The same inside a caller's transaction (seeding a model): plain builds on its connection. */
export async function syncFallbackIndexesIn(tx: Tx, collectionIds: Iterable<number>): Promise<void> {
  const ids = [...new Set(collectionIds)];
  if (ids.length === 0) return;
  const existing = new Set((await tx.$queryRawUnsafe<Array<{ id: number }>>(EXISTING, ids)).map((r) => r.id));
  for (const stmt of statementsFor(ids, existing, false)) await tx.$executeRawUnsafe(stmt);
}
