import type { PrismaClient, Tx } from '../../db/client.ts';
import { authorize, readSource, type Ctx } from '../../context.ts';
import { ErrorBag, notFound, type AppError } from '../../errors.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import { collectionForRequest } from '../../collections/schema-cache.ts';
import { requireReadView } from '../../collections/token-scope.ts';
import { emitContentEvent, emitContentEvents } from '../../events/outbox.ts';
import { passwordNamesSql } from '../store/snapshot.ts';
import type { ContentEventName } from '../../events/names.ts';
import { insertEntries, loadEntriesForWrite, publishCreated, updateEntries } from '../store/persist.ts';
import { destroyByUuid } from '../store/bulk-persist.ts';
import { serializeEntry } from '../reads/serialize.ts';
import { validateEntryInputs, type WriteMode } from '../values/validate.ts';
import { isUuid, type EntryResource, type EntryRow, type ReadOptions } from '../types.ts';
import { liveEntryByUuid } from '../store/rows.ts';
import { entryByUuidStatement, readColumns, readRows, statementName, takeLinked, type ReadRow, type RowWithLinks } from '../reads/read-rows.ts';
import { contentLoaders } from '../reads/loaders.ts';
import { fallbackFor, readEntryAlongChain, refuseTranslationLocale } from '../reads/fallback.ts';
import { canSaveWithoutLock, saveDraftWithoutLock } from './save-draft.ts';
import { canWriteWithoutLock, createWithoutLock } from './create-without-lock.ts';
import { collectionRef, createdEvents, eventFactory } from '../../events/entry-events.ts';

/** Interactive transactions here may wait on a row or advisory lock held by a concurrent write. */
export const TX_OPTIONS = { maxWait: 10_000, timeout: 20_000 } as const;

/**
 * A Ctx whose reads go through the transaction, with its own DataLoaders: reads inside a transaction
 * must see its writes, and on PGlite (one connection) a read outside it would wait forever.
 */
export function txCtx(ctx: Ctx, tx: Tx): Ctx {
  return { ...ctx, db: tx as PrismaClient, memo: new Map() };
}


export async function emitEntryEvent(tx: Tx, ctx: Ctx, collection: CollectionSchema, event: ContentEventName, row: EntryRow, entry?: EntryResource): Promise<void> {
  await emitContentEvent(tx, ctx, { event, collection: collectionRef(collection), entryUuid: row.uuid, locale: row.locale, entry }, passwordNamesSql);
}

export interface EntryWriteBody {
  data?: unknown;
  locale?: unknown;
  state?: unknown;
}

/** Write responses show the working draft the client just wrote. */
const writeView = (timestamps?: boolean) => ({ state: 'draft', timestamps }) as const satisfies ReadOptions;

/**
 * POST /api/{collection}. `state: published` publishes on create (version 1, same transaction). Emits
 * `content.created`, and `content.published` when published.
 */
export async function createEntry(ctx: Ctx, slug: string, body: EntryWriteBody, opts: { timestamps?: boolean } = {}): Promise<EntryResource> {
  authorize(ctx, 'create');
  const collection = await collectionForRequest(ctx, slug);
  if (canWriteWithoutLock(ctx, collection)) {
    // Two round trips (ids, then one statement writing the entry, its version and its events) instead
    // of BEGIN, two statements and COMMIT: on a host where each round trip costs the writer a wake-up of
    // the database's process, that is half a create's server time (BENCHMARKS.md, "Invalidation that survives writes").
    const created = await createWithoutLock(ctx, collection, [{ ...body, index: 0 }], { bag: new ErrorBag(), keyPrefix: () => '', timestamps: opts.timestamps });
    if (created) return created[0];
  }
  return ctx.db.$transaction(async (tx) => {
    const tctx = txCtx(ctx, tx);
    const bag = new ErrorBag();
    const items = await validateEntryInputs(tctx, collection, [body], 'create', { db: tx, bag });
    bag.throwIfAny();
    let rows = await insertEntries(tx, tctx, collection, items);
    rows = await publishCreated(tx, tctx, rows, items);
    const entry = await serializeEntry(tctx, collection, rows[0], writeView(opts.timestamps));
    await emitContentEvents(tx, tctx, createdEvents(eventFactory(collection), rows[0], entry, items[0].state === 'published'), passwordNamesSql);
    return entry;
  }, TX_OPTIONS);
}

/**
 * PUT (`replace`: every custom field is rewritten from `data`, missing ones cleared) or PATCH (`patch`:
 * only keys sent). `state` is ignored: saving never publishes or mints (docs/entries.md). Emits `content.updated`.
 */
export async function updateEntry(ctx: Ctx, slug: string, uuid: string, body: EntryWriteBody, mode: Exclude<WriteMode, 'create'>, opts: { timestamps?: boolean } = {}): Promise<EntryResource> {
  authorize(ctx, 'update');
  const collection = await collectionForRequest(ctx, slug);
  if (!isUuid(uuid)) throw notFound('Entry not found.');
  if (canSaveWithoutLock(ctx, collection)) {
    const saved = await saveDraftWithoutLock(ctx, collection, uuid, body, mode, writeView(opts.timestamps));
    if (saved) return saved;
  }
  return ctx.db.$transaction(async (tx) => {
    const tctx = txCtx(ctx, tx);
    const [existing] = await loadEntriesForWrite(tx, collection, [uuid]);
    if (!existing) throw notFound('Entry not found.');
    const bag = new ErrorBag();
    const items = await validateEntryInputs(tctx, collection, [{ data: body.data, locale: body.locale, existing }], mode, { db: tx, bag });
    bag.throwIfAny();
    const [row] = await updateEntries(tx, tctx, collection, items);
    const entry = await serializeEntry(tctx, collection, row, writeView(opts.timestamps));
    await emitEntryEvent(tx, tctx, collection, 'content.updated', row, entry);
    return entry;
  }, TX_OPTIONS);
}

export interface GetEntryOptions extends ReadOptions {
  /** The entry must have this locale (404 otherwise). */
  locale?: string;
  /** Return the entry's translation in this locale instead (docs/entries.md). */
  translationLocale?: string;
  /** Answer the entry's translation group along `locale`'s fallback chain (src/entries/reads/fallback.ts). */
  withFallback?: boolean;
}

/**
 * The 404 of a published read of a draft-only entry. A caller that may read drafts is told why (the
 * first surprise of a new API user: create, then get); one limited to published content learns
 * nothing it could not read, so it gets the plain text.
 */
function unpublishedEntry(ctx: Ctx): AppError {
  const draftsVisible = !ctx.scope?.delivery && !(ctx.scope?.preview && ctx.scope.release !== null);
  return draftsVisible ? notFound('Entry not found: it has no published version yet. Read its draft with state=draft (REST ?state=draft, GraphQL state: DRAFT).') : notFound('Entry not found.');
}

/** GET /api/{collection}/{uuid}. Published reads 404 for entries without a published version. */
export async function getEntry(ctx: Ctx, slug: string, uuid: string, opts: GetEntryOptions): Promise<EntryResource> {
  authorize(ctx, 'read');
  requireReadView(ctx, { state: opts.state });
  const collection = await collectionForRequest(ctx, slug);
  if (!isUuid(uuid)) throw notFound('Entry not found.');
  if (opts.withFallback) {
    if (opts.translationLocale) refuseTranslationLocale();
    const fallback = fallbackFor(ctx, opts.locale);
    return serializeEntry(ctx, collection, await readEntryAlongChain(ctx, collection, uuid, fallback, opts.state), { ...opts, fallback });
  }
  // The entries its relations link come in the same statement, unless a translation is answered instead.
  const { columns, links } = readColumns(ctx, collection, opts.state, !opts.translationLocale);
  const statement = entryByUuidStatement(columns, collection.id, uuid);
  const found = await readRows<RowWithLinks>(ctx, statement, statementName(statement.text));
  const loader = contentLoaders(ctx).entryByUuid;
  let row: ReadRow | null = takeLinked(found, links, opts.state, (u, r) => loader.prime(u, r))[0] ?? null;
  if (!row) throw notFound('Entry not found.');
  if (opts.translationLocale) {
    const locale = opts.translationLocale.toLowerCase();
    if (row.translationGroupId === null) throw notFound('This entry has no translations linked.');
    row = await (await readSource(ctx)).db.entry.findFirst({ where: { translationGroupId: row.translationGroupId, locale, deletedAt: null, collectionId: collection.id } });
    if (!row || (opts.state === 'published' && row.publishedVersionId === null)) throw notFound(`Translation not found for locale '${locale}'.`);
  } else {
    if (opts.locale && row.locale !== opts.locale.toLowerCase()) throw notFound('Entry not found.');
    if (opts.state === 'published' && row.publishedVersionId === null) throw unpublishedEntry(ctx);
  }
  return serializeEntry(ctx, collection, row, opts);
}

/**
 * DELETE /api/{collection}/{uuid}. Soft delete (trash) by default: the row stays with `deleted_at` set,
 * its versions and publish state untouched, and it disappears from every read; emits `content.trashed`.
 * `force` removes the row and its versions for good (also for an already-trashed entry); emits
 * `content.deleted` with ids only.
 */
export async function deleteEntry(ctx: Ctx, slug: string, uuid: string, force: boolean): Promise<{ message: string }> {
  authorize(ctx, 'delete');
  const collection = await collectionForRequest(ctx, slug);
  if (!isUuid(uuid)) throw notFound('Entry not found.');
  await ctx.db.$transaction(async (tx) => {
    const tctx = txCtx(ctx, tx);
    // Locked: of N identical deletes at once, the others wait here and then find the row gone (or
    // already trashed) and answer 404, as they would a moment later; one event, one deleted_at.
    const row = await liveEntryByUuid(tx, collection.id, uuid, { includeTrashed: force, lock: true });
    if (!row) throw notFound('Entry not found.');
    if (force) {
      // The deleted row's revision goes with the event (its order among the entry's events).
      const [gone] = await destroyByUuid(tx, collection, [row.uuid]);
      await emitContentEvent(tx, tctx, eventFactory(collection)('content.deleted', gone ?? row), passwordNamesSql);
    } else {
      const trashed = await tx.entry.update({ where: { id: row.id, collectionId: collection.id }, data: { deletedAt: new Date() } });
      const entry = await serializeEntry(tctx, collection, trashed, writeView());
      await emitEntryEvent(tx, tctx, collection, 'content.trashed', trashed, entry);
    }
  }, TX_OPTIONS);
  return { message: 'Content deleted.' };
}
