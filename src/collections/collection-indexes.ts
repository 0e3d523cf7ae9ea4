import type { Database, Tx } from '../db/client.ts';

/**
 * A family of per-collection indexes (search-indexes.ts, fallback-indexes.ts): which collections should
 * have them, and the statements that build or drop one collection's set. Every family builds with
 * IF NOT EXISTS, so a sync over a collection that already has its indexes changes nothing.
 */
export interface CollectionIndexFamily {
  /** `SELECT id FROM collections WHERE id = ANY($1::int[]) AND …`: the collections that want the indexes. */
  readonly wantedSql: string;
  build(collectionId: number, opts: { concurrently: boolean }): string[];
  drop(collectionId: number): string[];
}

/** Where the statements run: the pool after a commit, or a caller's transaction (seeding a model). */
export type IndexTarget = Database | { tx: Tx };

/** Per collection of `ids`: the family's builds when it is wanted, else its drops. */
function statementsFor(family: CollectionIndexFamily, ids: number[], wanted: Set<number>, concurrently: boolean): string[] {
  return ids.flatMap((id) => (wanted.has(id) ? family.build(id, { concurrently }) : family.drop(id)));
}

/**
 * Brings each family's indexes of `collectionIds` in line with what the collections now want: builds
 * the wanted ones and drops the rest (a collection that no longer exists wants none). On the pool of a
 * PostgreSQL server the builds are CONCURRENTLY, so entry writers of a large collection are not blocked
 * while it is scanned; inside a transaction (where CONCURRENTLY cannot run) they are plain.
 */
export async function syncCollectionIndexes(
  target: IndexTarget,
  families: ReadonlyArray<CollectionIndexFamily>,
  collectionIds: Iterable<number>,
): Promise<void> {
  const ids = [...new Set(collectionIds)];
  if (ids.length === 0) return;
  for (const family of families) {
    if ('tx' in target) {
      const rows = await target.tx.$queryRawUnsafe<Array<{ id: number }>>(family.wantedSql, ids);
      const wanted = new Set(rows.map((r) => r.id));
      for (const stmt of statementsFor(family, ids, wanted, false)) await target.tx.$executeRawUnsafe(stmt);
    } else {
      const rows = await target.query<{ id: number }>(family.wantedSql, [ids]);
      const wanted = new Set(rows.map((r) => r.id));
      for (const stmt of statementsFor(family, ids, wanted, target.kind === 'postgres')) await target.runScript(stmt);
    }
  }
}
