import type { Tx } from '../../db/client.ts';
import type { CollectionSchema } from '../../collections/model.ts';

/**
 * Serialises writes that check "no other entry has this" (singleton, unique values, slugs) per
 * collection + locale, across processes: a transaction-scoped advisory lock, taken in sorted order so
 * two batches touching the same locales cannot deadlock. Without it two concurrent creates could both
 * see "free" and both insert.
 */
export async function lockWriteScope(tx: Tx, collection: CollectionSchema, locales: string[]): Promise<void> {
  const sorted = [...new Set(locales)].sort();
  if (sorted.length === 0) return;
  await tx.$queryRawUnsafe(LOCK_WRITE_SCOPE, collection.id, sorted);
}

/** The lock of lockWriteScope as a statement of its own: $1 the collection id, $2 the locales. */
export const LOCK_WRITE_SCOPE = `SELECT pg_advisory_xact_lock($1::int, hashtext(s.l))::text
    FROM (SELECT l FROM unnest($2::text[]) AS l ORDER BY l) s`;
