import type { ContentChange } from '../db/change-feed.ts';
import type { CollectionGenerations } from '../context.ts';
import { laterLsnText } from '../db/lsn.ts';

/** What a cached authentication carries that content commits move: the generations read caches key by. */
export interface ContentStamped {
  /** The project's id. */
  id: number;
  generation: string;
  collections: CollectionGenerations | null;
  /** The primary's WAL position the generations were counted at (the latest, once raised). */
  wal_lsn?: string | null;
}

/**
 * `row` with its generations raised to those of a content commit (counters only grow, so the larger
 * value is the newer whatever order commits are heard in); the same object when nothing moved. A
 * collection the row does not name is left out: read caches key a collection authentication did not
 * see by the project-wide generation, which every content commit moves, and a new or renamed
 * collection also changes the project (its own notification drops the row).
 */
export function raiseGenerations<V extends ContentStamped>(row: V, change: ContentChange): V {
  let generation = row.generation;
  if (change.generation !== undefined && change.generation > BigInt(generation)) generation = change.generation.toString();
  let collections = row.collections;
  if (change.collections?.length && collections) {
    const slugById = new Map<number, string>();
    for (const slug of Object.keys(collections)) slugById.set(collections[slug][0], slug);
    let copied = false;
    for (const [id, published, draft] of change.collections) {
      const slug = slugById.get(id);
      if (slug === undefined) continue;
      const [, p, d] = collections[slug];
      if (published <= p && draft <= d) continue;
      if (!copied) {
        collections = { ...collections };
        copied = true;
      }
      collections[slug] = [id, Math.max(p, published), Math.max(d, draft)];
    }
  }
  const walLsn = laterLsnText<string | null | undefined>(row.wal_lsn, change.lsn);
  if (generation === row.generation && collections === row.collections && walLsn === row.wal_lsn) return row;
  return { ...row, generation, collections, ...(walLsn === undefined ? {} : { wal_lsn: walLsn }) };
}
