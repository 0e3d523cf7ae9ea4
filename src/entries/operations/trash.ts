import { Prisma } from '../../db/client.ts';
import { authorize, type Ctx } from '../../context.ts';
import { conflict, ErrorBag, notFound } from '../../errors.ts';
import { collectionForRequest } from '../../collections/schema-cache.ts';
import { compileWhere } from '../../filtering/index.ts';
import { contentLoaders } from '../reads/loaders.ts';
import { emitContentEvents } from '../../events/outbox.ts';
import { passwordNamesSql } from '../store/snapshot.ts';
import { emitEntryEvent, TX_OPTIONS, txCtx } from './entry.ts';
import { eventFactory } from '../../events/entry-events.ts';
import { DESTROYED_COLUMNS, type DestroyedRow } from '../store/bulk-persist.ts';
import { ENTRY_COLUMNS, liveEntryByUuid, sameCollection } from '../store/rows.ts';
import { selectPage, MAX_PAGE_SIZE } from '../reads/list.ts';
import { serializeEntries, serializeEntry } from '../reads/serialize.ts';
import { checkRestoreConflicts } from '../values/validate.ts';
import { isUuid, type EntryResource, type EntryRow } from '../types.ts';

/**
 * The trash of a collection: entries soft-deleted by `DELETE /api/{collection}/{uuid}` stay in
 * `entries` with `deleted_at` set, invisible to every read, until they are restored, deleted for good
 * (one with `?force=1`, all with `DELETE /api/{collection}/trash`) or purged by retention
 * (trash-retention.ts). Reads of the trash show the working draft (what a restore brings back),
 * through the same serializer and visibility rule as every other read.
 */

/** Trash pages when the client names no size. */
export const DEFAULT_TRASH_PAGE_SIZE = 25;

export interface TrashQuery {
  locale?: string;
  where?: unknown;
  /** Page size (capped at MAX_PAGE_SIZE). */
  paginate?: number;
  page?: number;
  timestamps?: boolean;
  exclude?: string[];
}

/** A trashed entry: the entry resource with when it went to the trash. */
export type TrashedEntryResource = EntryResource & { deleted_at: string };

export interface TrashPage {
  data: TrashedEntryResource[];
  total: number;
  page: number;
  perPage: number;
}

const withDeletedAt = (entry: EntryResource, row: EntryRow): TrashedEntryResource => ({ ...entry, deleted_at: (row.deletedAt ?? new Date()).toISOString() });

/**
 * GET /api/{collection}/trash: the collection's trashed entries, most recently trashed first, one
 * page at a time (served by the partial `entries_trash_x` index). `where` filters the working drafts.
 */
export async function listTrash(ctx: Ctx, slug: string, query: TrashQuery): Promise<TrashPage> {
  authorize(ctx, 'read');
  const collection = await collectionForRequest(ctx, slug);
  const partition = sameCollection('e.collection_id', collection.id);
  const conds: Prisma.Sql[] = [partition, Prisma.sql`e.deleted_at IS NOT NULL`];
  if (query.locale) conds.push(Prisma.sql`e.locale = ${query.locale}`);
  // Relation targets through the request's loader: a nested filter sees them as the caller may.
  const loadCollection = (id: number) => contentLoaders(ctx).collectionById.load(id);
  const filter = await compileWhere(query.where, { db: ctx.db, projectId: ctx.project.id, collection, column: 'data', alias: 'e', loadCollection });
  if (filter) conds.push(filter);
  const perPage = Math.min(query.paginate ?? DEFAULT_TRASH_PAGE_SIZE, MAX_PAGE_SIZE);
  const page = query.page ?? 1;
  const { rows, total } = await selectPage(ctx.db, Prisma.join(conds, ' AND '), Prisma.sql`e.deleted_at DESC, e.id DESC`, {
    partition,
    limit: perPage,
    offset: (page - 1) * perPage,
    onePass: false,
  });
  const entries = await serializeEntries(ctx, collection, rows, { state: 'draft', timestamps: query.timestamps, exclude: query.exclude });
  return { data: entries.map((e, i) => withDeletedAt(e, rows[i])), total, page, perPage };
}

/**
 * POST /api/{collection}/{uuid}/restore: a trashed entry becomes live again, with its draft, versions
 * and publish state as they were. The singleton, unique and translation-group rules run again (422
 * naming the conflict); an entry that is not in the trash is 409. Emits `content.restored` with the
 * entry in the same transaction. Returns the working draft, as other writes do.
 */
export async function restoreEntry(ctx: Ctx, slug: string, uuid: string, opts: { timestamps?: boolean } = {}): Promise<EntryResource> {
  authorize(ctx, 'update');
  const collection = await collectionForRequest(ctx, slug);
  if (!isUuid(uuid)) throw notFound('Entry not found.');
  return ctx.db.$transaction(async (tx) => {
    const tctx = txCtx(ctx, tx);
    const row = await liveEntryByUuid(tx, collection.id, uuid, { includeTrashed: true, lock: true });
    if (!row) throw notFound('Entry not found.');
    if (row.deletedAt === null) throw conflict('The entry is not in the trash.');
    const bag = new ErrorBag();
    await checkRestoreConflicts(tx, collection, row, bag);
    bag.throwIfAny();
    // A singleton's live entries share one translation group (persist.ts singletonGroup): a restored
    // entry joins theirs, which may have been made after it was trashed.
    const group = collection.isSingleton
      ? Prisma.sql`, translation_group_id = COALESCE((SELECT min(o.translation_group_id) FROM entries o WHERE o.collection_id = ${collection.id} AND o.deleted_at IS NULL), e.translation_group_id)`
      : Prisma.empty;
    const [restored] = await tx.$queryRaw<EntryRow[]>(Prisma.sql`
      UPDATE entries AS e SET deleted_at = NULL, updated_at = now() ${group}
      WHERE ${sameCollection('e.collection_id', collection.id)} AND e.id = ${row.id}
      RETURNING ${ENTRY_COLUMNS}`);
    const entry = await serializeEntry(tctx, collection, restored, { state: 'draft', timestamps: opts.timestamps });
    await emitEntryEvent(tx, tctx, collection, 'content.restored', restored, entry);
    return entry;
  }, TX_OPTIONS);
}

/**
 * DELETE /api/{collection}/trash: deletes every trashed entry of the collection for good (versions
 * with them), in one transaction, emitting one `content.deleted` (ids only) per entry, as a force
 * delete does. Entries trashed while it runs wait for the next call.
 */
export async function emptyTrash(ctx: Ctx, slug: string): Promise<{ message: string; deleted: number }> {
  authorize(ctx, 'delete');
  const collection = await collectionForRequest(ctx, slug);
  const deleted = await ctx.db.$transaction(async (tx) => {
    const tctx = txCtx(ctx, tx);
    const gone = await tx.$queryRaw<DestroyedRow[]>(Prisma.sql`
      DELETE FROM entries e WHERE e.collection_id = ${collection.id} AND e.deleted_at IS NOT NULL
      RETURNING ${DESTROYED_COLUMNS}`);
    const event = eventFactory(collection);
    await emitContentEvents(tx, tctx, gone.map((g) => event('content.deleted', g)), passwordNamesSql);
    return gone.length;
  }, TX_OPTIONS);
  return { message: deleted === 1 ? '1 entry deleted from the trash.' : `${deleted} entries deleted from the trash.`, deleted };
}

