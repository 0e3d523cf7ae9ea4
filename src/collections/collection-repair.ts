import type { Database } from '../db/client.ts';
import type { CollectionSchema } from './model.ts';
import { fieldIndexStatements } from './field-indexes.ts';
import { dropUniqueIndexStatements, existingUniqueIndexes, isUniqueField, uniqueIndexSyncStatements } from './unique-indexes.ts';
import { syncCollectionIndexes, type CollectionIndexFamily } from './collection-indexes.ts';
import { SEARCH_INDEXES } from './search-indexes.ts';
import { FALLBACK_INDEXES } from './fallback-indexes.ts';

/** The per-collection index families (collection-indexes.ts): a collection's search and fallback indexes. */
export const COLLECTION_INDEXES: ReadonlyArray<CollectionIndexFamily> = [SEARCH_INDEXES, FALLBACK_INDEXES];

/**
 * Every index a collection should have, built, and the unique indexes it should not have, dropped:
 * for startup, the CLI or a repair after an index was lost (dropped by hand, or left invalid by a
 * failed CONCURRENTLY build). Each top-level field gets its filter indexes (field-indexes.ts) and its
 * unique index by the one rule of unique-indexes.ts; a unique index of the collection whose field is
 * gone or no longer unique is dropped, and an invalid one rebuilt; then the collection's search and
 * fallback families are synced. Idempotent: what exists and is valid is left as it is.
 */
export async function ensureCollectionIndexes(database: Database, collection: CollectionSchema): Promise<void> {
  const concurrently = database.kind === 'postgres';
  const existing = await existingUniqueIndexes(database, collection.id);
  const unique = new Set(collection.fields.filter(isUniqueField).map((f) => f.id));
  const statements: string[] = [];
  for (const [fieldId, { valid }] of existing) {
    if (!unique.has(fieldId) || !valid) statements.push(...dropUniqueIndexStatements(fieldId));
  }
  for (const field of collection.fields) {
    statements.push(...fieldIndexStatements(collection.id, field, { concurrently }));
    // A field without the rule whose index is already gone needs no statement.
    if (unique.has(field.id)) statements.push(...uniqueIndexSyncStatements(collection.id, field, { concurrently }));
  }
  for (const stmt of statements) await database.runScript(stmt);
  await syncCollectionIndexes(database, COLLECTION_INDEXES, [collection.id]);
}
