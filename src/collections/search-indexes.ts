import type { CollectionIndexFamily } from './collection-indexes.ts';
import { fieldIndexPredicate } from './field-indexes.ts';
import { entriesPartitionSql } from './partitions.ts';

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
    `CREATE INDEX ${how} "${searchIndexName(collectionId, view)}" ON ${entriesPartitionSql(collectionId)} USING gin ("${vector}") WHERE ${fieldIndexPredicate(collectionId, column)}`,
  );
}

export const dropSearchIndexStatements = (collectionId: number): string[] =>
  VIEWS.map(([view]) => `DROP INDEX IF EXISTS "${searchIndexName(collectionId, view)}"`);

/** Only collections with searchable fields have them: the others' are dropped. */
export const SEARCH_INDEXES: CollectionIndexFamily = {
  wantedSql: `SELECT id FROM collections WHERE id = ANY($1::int[]) AND search_fields <> '[]'::jsonb`,
  build: (collectionId, opts) => searchIndexStatements(collectionId, opts),
  drop: dropSearchIndexStatements,
};
