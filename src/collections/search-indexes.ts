import type { Database, Tx } from '../db/client.ts';
import { fieldIndexPredicate } from './field-indexes.ts';

/**
 * The full-text GIN indexes of a collection: one per view (`search_draft`, `search_published`),
 * partial on exactly the rows a list of that view reads, as the per-field indexes are
 * (field-indexes.ts), so a search's bitmap scan needs no Filter for state and only finds entries of
 * its collection. The vectors themselves are kept by triggers (migration
 * 20261128060000_full_text_search), which also decide which fields are searchable
 * (`collections.search_fields`).
 */

type View = 'd' | 'p';
const VIEWS: ReadonlyArray<[View, 'search_draft' | 'search_published', 'data' | 'published_data']> = [
  ['d', 'search_draft', 'data'],
  ['p', 'search_published', 'published_data'],
];

export const searchIndexName = (collectionId: number, view: View): string => `entries_c${Math.trunc(collectionId)}_search_${view}_x`;

export function searchIndexStatements(collectionId: number, opts: { concurrently?: boolean } = {}): string[] {
  const how = opts.concurrently ? 'CONCURRENTLY IF NOT EXISTS' : 'IF NOT EXISTS';
  return VIEWS.map(([view, vector, column]) =>
    `CREATE INDEX ${how} "${searchIndexName(collectionId, view)}" ON "entries" USING gin ("${vector}") WHERE ${fieldIndexPredicate(collectionId, column)}`,
  );
}

export const dropSearchIndexStatements = (collectionId: number): string[] =>
  VIEWS.map(([view]) => `DROP INDEX IF EXISTS "${searchIndexName(collectionId, view)}"`);

const SEARCHABLE = `SELECT id FROM collections WHERE id = ANY($1::int[]) AND search_fields <> '[]'::jsonb`;

/** Per collection: its index statements when it has searchable fields, else the drops. */
function statementsFor(ids: number[], searchable: Set<number>, concurrently: boolean): string[] {
  return ids.flatMap((id) => (searchable.has(id) ? searchIndexStatements(id, { concurrently }) : dropSearchIndexStatements(id)));
}

/**
 * After a schema change commits: builds the indexes of the collections among `collectionIds` that
 * have searchable fields (CONCURRENTLY on PostgreSQL: entry writers are not blocked while a large
 * collection is scanned) and drops those of collections that have none left, or no longer exist.
 */
export async function syncSearchIndexes(database: Database, collectionIds: Iterable<number>): Promise<void> {
  const ids = [...new Set(collectionIds)];
  if (ids.length === 0) return;
  const searchable = new Set((await database.query<{ id: number }>(SEARCHABLE, [ids])).map((r) => r.id));
  for (const stmt of statementsFor(ids, searchable, database.kind === 'postgres')) await database.runScript(stmt);
}

/** The same inside a caller's transaction (seeding a model): plain builds on its connection. */
export async function syncSearchIndexesIn(tx: Tx, collectionIds: Iterable<number>): Promise<void> {
  const ids = [...new Set(collectionIds)];
  if (ids.length === 0) return;
  const searchable = new Set((await tx.$queryRawUnsafe<Array<{ id: number }>>(SEARCHABLE, ids)).map((r) => r.id));
  for (const stmt of statementsFor(ids, searchable, false)) await tx.$executeRawUnsafe(stmt);
}
