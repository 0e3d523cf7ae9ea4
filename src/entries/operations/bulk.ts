import { authorize, type Ctx } from '../../context.ts';
import { ErrorBag } from '../../errors.ts';
import { collectionForRequest } from '../../collections/schema-cache.ts';
import { TX_OPTIONS, txCtx } from './entry.ts';
import { createdEvents, eventFactory } from '../../events/entry-events.ts';
import { insertEntries, loadEntriesForWrite, publishCreated, updateEntries } from '../store/persist.ts';
import { serializeEntries } from '../reads/serialize.ts';
import { contentLoaders } from '../reads/loaders.ts';
import { validateEntryInputs } from '../values/validate.ts';
import type { EntryResource } from '../types.ts';
import { mintEntries } from '../store/mint.ts';
import { emitContentEvents } from '../../events/outbox.ts';
import { passwordNamesSql } from '../store/snapshot.ts';
import { destroyByUuid, isPublished, trashByUuid, unpublishRows } from '../store/bulk-persist.ts';
import { canWriteWithoutLock, createWithoutLock } from './create-without-lock.ts';
import { itemKey, parseCreateBody, parseDeleteBody, parseUpdateBody } from './bulk-input.ts';
import { bulkUpdateWithoutLock } from './update-without-lock.ts';

export interface BulkWriteResult {
  message: string;
  data: EntryResource[];
}

export interface BulkDeleteResult {
  message: string;
  count: number;
  force: boolean;
}

export interface BulkWriteOptions {
  /** Adds `created_at` / `updated_at` to the returned resources, as on single writes. */
  timestamps?: boolean;
}

/**
 * POST /api/bulk/{collection}/entries. Every item is validated (shape, locale, field values, singleton
 * and unique rules, within the request too) before anything is written; then all items are inserted
 * with one statement, the `state: published` ones publish on create exactly as a single create does
 * (version 1, batched), and each item emits `content.created` (+ `content.published`). All or nothing.
 */
export async function bulkCreateEntries(ctx: Ctx, slug: string, body: unknown, opts: BulkWriteOptions = {}): Promise<BulkWriteResult> {
  authorize(ctx, 'create');
  const collection = await collectionForRequest(ctx, slug);
  const bag = new ErrorBag();
  const items = parseCreateBody(body, bag);
  if (canWriteWithoutLock(ctx, collection)) {
    const data = await createWithoutLock(ctx, collection, items, { bag, keyPrefix: (i) => `${itemKey(items[i].index)}.`, timestamps: opts.timestamps });
    if (data) return { message: 'Bulk content created successfully.', data };
  }
  const data = await ctx.db.$transaction(async (tx) => {
    const tctx = txCtx(ctx, tx);
    const validated = await validateEntryInputs(tctx, collection, items, 'create', {
      db: tx,
      bag,
      keyPrefix: (i) => `${itemKey(items[i].index)}.`,
    });
    bag.throwIfAny();
    const rows = await publishCreated(tx, tctx, await insertEntries(tx, tctx, collection, validated), validated);
    const resources = await serializeEntries(tctx, collection, rows, { state: 'draft', timestamps: opts.timestamps });
    const event = eventFactory(collection);
    const events = rows.flatMap((row, i) => createdEvents(event, row, resources[i], validated[i].state === 'published'));
    await emitContentEvents(tx, tctx, events, passwordNamesSql);
    return resources;
  }, TX_OPTIONS);
  return { message: 'Bulk content created successfully.', data };
}

/**
 * PATCH /api/bulk/{collection}/entries. Each item patches its entry like a single PATCH (only the
 * keys in `data` change), then `state: published` publishes it (new version) and `state: draft`
 * unpublishes it if it was published; no `state` leaves the publish state alone. Entries are locked
 * in id order before anything is read. Unknown or trashed UUIDs fail the request with a message that
 * lists them, together with every other problem of the request. All or nothing.
 */
export async function bulkUpdateEntries(ctx: Ctx, slug: string, body: unknown, opts: BulkWriteOptions = {}): Promise<BulkWriteResult> {
  authorize(ctx, 'update');
  const collection = await collectionForRequest(ctx, slug);
  const bag = new ErrorBag();
  const items = parseUpdateBody(body, bag);
  if (canWriteWithoutLock(ctx, collection) && items.length > 0) {
    const data = await bulkUpdateWithoutLock(ctx, collection, items, { bag, timestamps: opts.timestamps });
    if (data) return { message: 'Bulk content updated successfully.', data };
  }
  const data = await ctx.db.$transaction(async (tx) => {
    const tctx = txCtx(ctx, tx);
    const locked = new Map((await loadEntriesForWrite(tx, collection, items.map((i) => i.uuid))).map((r) => [r.uuid, r]));
    const missing = items.filter((i) => !locked.has(i.uuid));
    for (const m of missing) {
      bag.add(`${itemKey(m.index)}.uuid`, `The selected ${itemKey(m.index)}.uuid is invalid: no entry with this UUID exists in this collection.`);
    }
    const found = items.filter((i) => locked.has(i.uuid));
    const validated = await validateEntryInputs(
      tctx,
      collection,
      found.map((i) => ({ data: i.data, locale: i.locale, existing: locked.get(i.uuid) })),
      'patch',
      { db: tx, bag, keyPrefix: (i) => `${itemKey(found[i].index)}.` },
    );
    bag.throwIfAny(missing.length ? `Entries not found in this collection: ${missing.map((m) => m.uuid).join(', ')}.` : undefined);

    const updated = await updateEntries(tx, tctx, collection, validated);
    const view = { state: 'draft', timestamps: opts.timestamps } as const;
    const updatedResources = await serializeEntries(tctx, collection, updated, view);

    const publish = found.flatMap((item, i) => (item.state === 'published' ? [updated[i]] : []));
    const unpublish = found.flatMap((item, i) => (item.state === 'draft' && isPublished(updated[i]) ? [updated[i]] : []));
    const published = (await mintEntries(tx, tctx, publish.map((r) => ({ entryId: r.id, collectionId: r.collectionId })))).map((m) => m.entry);
    const unpublished = await unpublishRows(tx, unpublish);
    const changed = new Map([...published, ...unpublished].map((r) => [r.id, r]));
    const final = updated.map((r) => changed.get(r.id) ?? r);
    // Relation targets may be entries this request just published or unpublished.
    if (changed.size) contentLoaders(tctx).entryByUuid.clearAll();
    const resources = changed.size ? await serializeEntries(tctx, collection, final, view) : updatedResources;
    // Publish events carry the published view, as POST .../publish sends it.
    const publishedResources = new Map(
      (await serializeEntries(tctx, collection, published, { state: 'published' })).map((res, i) => [published[i].id, res]),
    );
    const unpublishedIds = new Set(unpublish.map((r) => r.id));

    const event = eventFactory(collection);
    const events = final.flatMap((row, i) => [
      event('content.updated', row, updatedResources[i]),
      ...(publishedResources.has(row.id) ? [event('content.published', row, publishedResources.get(row.id))] : []),
      ...(unpublishedIds.has(row.id) ? [event('content.unpublished', row, resources[i])] : []),
    ]);
    await emitContentEvents(tx, tctx, events, passwordNamesSql);
    return resources;
  }, TX_OPTIONS);
  return { message: 'Bulk content updated successfully.', data };
}

/**
 * DELETE /api/bulk/{collection}/entries. Soft delete (trash) by default, `force` removes entries and
 * their versions for good (trashed ones too), as the single delete does; each deleted entry emits
 * `content.trashed` (with the entry) or `content.deleted` (ids only). UUIDs that name no entry are
 * skipped, not an error: `count` is how many entries this request actually deleted.
 */
export async function bulkDeleteEntries(ctx: Ctx, slug: string, body: unknown, query: Record<string, unknown> = {}): Promise<BulkDeleteResult> {
  authorize(ctx, 'delete');
  const collection = await collectionForRequest(ctx, slug);
  const { uuids, force } = parseDeleteBody(body, query);
  const count =
    uuids.length === 0
      ? 0
      : await ctx.db.$transaction(async (tx) => {
          const tctx = txCtx(ctx, tx);
          const event = eventFactory(collection);
          const order = new Map(uuids.map((u, i) => [u, i]));
          const byRequestOrder = <T extends { uuid: string }>(rows: T[]) => rows.sort((a, b) => order.get(a.uuid)! - order.get(b.uuid)!);
          if (force) {
            const gone = byRequestOrder(await destroyByUuid(tx, collection, uuids));
            await emitContentEvents(tx, tctx, gone.map((row) => event('content.deleted', row)), passwordNamesSql);
            return gone.length;
          }
          const trashed = byRequestOrder(await trashByUuid(tx, collection, uuids));
          const resources = await serializeEntries(tctx, collection, trashed, { state: 'draft' });
          await emitContentEvents(tx, tctx, trashed.map((row, i) => event('content.trashed', row, resources[i])), passwordNamesSql);
          return trashed.length;
        }, TX_OPTIONS);
  return { message: 'Bulk content deleted successfully.', count, force };
}
