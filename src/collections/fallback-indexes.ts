import type { CollectionIndexFamily } from './collection-indexes.ts';
import { fieldIndexPredicate } from './field-indexes.ts';
import { entriesPartitionSql } from './partitions.ts';

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
    `CREATE INDEX ${how} "${fallbackIndexName(collectionId, view)}" ON ${entriesPartitionSql(collectionId)} ("translation_group_id", "locale", "id") WHERE ${fieldIndexPredicate(collectionId, column)}`,
  );
}

export const dropFallbackIndexStatements = (collectionId: number): string[] =>
  VIEWS.map(([view]) => `DROP INDEX IF EXISTS "${fallbackIndexName(collectionId, view)}"`);

/** Every existing collection has them; a dropped collection's are dropped. */
export const FALLBACK_INDEXES: CollectionIndexFamily = {
  wantedSql: `SELECT id FROM collections WHERE id = ANY($1::int[])`,
  build: (collectionId, opts) => fallbackIndexStatements(collectionId, opts),
  drop: dropFallbackIndexStatements,
};
