import type { Database } from '../db/client.ts';

/**
 * Entries are LIST-partitioned by collection (migration 20261206000000_entries_by_collection): each
 * collection's rows live in `entries_c<id>`, made by a trigger when the collection row is inserted.
 * Every per-collection index and statistics object is built on that partition, never on `entries`,
 * so planning a statement that names its collection, and maintaining the indexes of a write, costs
 * what that collection's own fields cost, whatever else the server holds (docs/architecture.md,
 * "Entry storage").
 */
export const entriesPartition = (collectionId: number): string => `entries_c${Math.trunc(collectionId)}`;

/** The partition as a quoted SQL identifier, for DDL texts. */
export const entriesPartitionSql = (collectionId: number): string => `"${entriesPartition(collectionId)}"`;

/**
 * Drops the partitions of collections that no longer exist (their rows went with the collection's
 * cascade; a partition cannot be dropped in that transaction while its rows' deferred triggers are
 * pending). Runs on the pool after the deleting transaction commits, and from the maintenance sweep.
 * Dropping a partition takes a short ACCESS EXCLUSIVE lock on `entries`: on PostgreSQL the partition
 * is detached CONCURRENTLY first, so only the empty partition itself is locked.
 */
export async function dropOrphanPartitions(database: Database): Promise<number> {
  const rows = await database.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'entries'::regclass
        AND NOT EXISTS (SELECT 1 FROM collections k WHERE 'entries_c' || k.id = c.relname)`,
  );
  for (const { name } of rows) {
    if (!/^entries_c\d+$/.test(name)) continue;
    if (database.kind === 'postgres') {
      await database.runScript(`ALTER TABLE "entries" DETACH PARTITION "${name}" CONCURRENTLY`).catch(() => {});
    }
    await database.runScript(`DROP TABLE IF EXISTS "${name}"`);
  }
  return rows.length;
}
