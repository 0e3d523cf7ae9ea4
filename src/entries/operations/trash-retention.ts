import { Prisma } from '../../db/client.ts';
import { systemCtx, type Services } from '../../context.ts';
import { emitContentEvents } from '../../events/outbox.ts';
import { passwordNamesSql } from '../store/snapshot.ts';
import { removedOf } from '../../events/entry-events.ts';
import { DESTROYED_COLUMNS, type DestroyedRow } from '../store/bulk-persist.ts';

/** Entries deleted per transaction: bounded so a large backlog never holds locks for long. */
const PURGE_SLICE = 1000;

/**
 * Deletes, for good, entries that have been in the trash longer than `days` (TRASH_RETENTION_DAYS;
 * 0 keeps them forever), across all projects, in slices of PURGE_SLICE. Each slice is one
 * transaction that deletes the rows (their versions go with them) and writes one `content.deleted`
 * per entry to the outbox, as a force delete would, with source `cms`: nobody's API call made it.
 * Rows another transaction holds (a restore in progress) are skipped until the next run. Returns
 * how many entries were deleted. Run periodically by the webhook deliverer's retention pass
 * (src/delivery/runtime.ts, wired in src/services.ts).
 */
export async function purgeExpiredTrash(services: Services, days: number, slice = PURGE_SLICE): Promise<number> {
  if (days <= 0) return 0;
  const prisma = services.database.prisma;
  let total = 0;
  // One collection at a time, each statement naming its partition: a statement over `entries` that
  // names none is planned over, and locks, every collection's partition and indexes, which at a few
  // hundred collections is more than PostgreSQL's lock table holds. A collection without expired
  // trash costs one probe of its partition's trash index.
  const collections = await prisma.$queryRaw<Array<{ id: number }>>(Prisma.sql`SELECT id FROM collections ORDER BY id`);
  for (const { id: collectionId } of collections) {
    for (;;) {
      const n = await purgeSlice(services, collectionId, days, slice);
      total += n;
      if (n < slice) break;
    }
  }
  return total;
}

async function purgeSlice(services: Services, collectionId: number, days: number, slice: number): Promise<number> {
  return services.database.prisma.$transaction(async (tx) => {
      const expired = await tx.$queryRaw<Array<{ id: number; collection_id: number }>>(Prisma.sql`
        SELECT id, collection_id FROM entries
        WHERE collection_id = ${collectionId} AND deleted_at IS NOT NULL AND deleted_at < now() - make_interval(days => ${days}::int)
        ORDER BY deleted_at LIMIT ${slice} FOR UPDATE SKIP LOCKED`);
      const byCollection = new Map<number, number[]>();
      for (const r of expired) byCollection.set(r.collection_id, [...(byCollection.get(r.collection_id) ?? []), r.id]);
      const gone: Array<DestroyedRow & { projectId: number; collectionId: number }> = [];
      for (const [partition, ids] of byCollection) {
        gone.push(
          ...(await tx.$queryRaw<typeof gone>(Prisma.sql`
            DELETE FROM entries e WHERE e.collection_id = ${partition} AND e.id = ANY(${ids}::int[])
            RETURNING ${DESTROYED_COLUMNS}, e.project_id AS "projectId", e.collection_id AS "collectionId"`)),
        );
      }
      if (gone.length === 0) return 0;
      const projects = await tx.project.findMany({ where: { id: { in: [...new Set(gone.map((g) => g.projectId))] } } });
      const collections = await tx.collection.findMany({
        where: { id: { in: [...new Set(gone.map((g) => g.collectionId))] } },
        select: { id: true, uuid: true, slug: true },
      });
      const collectionById = new Map(collections.map((c) => [c.id, c]));
      for (const project of projects) {
        const ctx = systemCtx(services, project, 'trash-retention');
        const events = gone
          .filter((g) => g.projectId === project.id)
          .map((g) => ({ event: 'content.deleted' as const, collection: collectionById.get(g.collectionId)!, entryUuid: g.uuid, locale: g.locale, removed: removedOf('content.deleted', g) }));
        await emitContentEvents(tx, ctx, events, passwordNamesSql);
      }
      return gone.length;
    });
}
