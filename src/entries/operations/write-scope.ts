import { Prisma, type Tx } from '../../db/client.ts';
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
  await tx.$queryRaw(Prisma.sql`
    SELECT pg_advisory_xact_lock(${collection.id}::int, hashtext(s.l))::text
    FROM (SELECT l FROM unnest(${sorted}::text[]) AS l ORDER BY l) s`);
}
