import { Prisma, type Tx } from '../../db/client.ts';
import type { Ctx } from '../../context.ts';
import { ErrorBag } from '../../errors.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import { selectEntries } from '../../entries/store/rows.ts';
import { mintEntries } from '../../entries/store/mint.ts';
import { isPublished, unpublishRows } from '../../entries/store/bulk-persist.ts';
import { contentLoaders } from '../../entries/reads/loaders.ts';
import { isEmptyValue, requiredMessage } from '../../entries/values/common.ts';
import type { EntryRow } from '../../entries/types.ts';
import type { ReleaseItemRow, ReleaseRow } from '../model.ts';

/**
 * What a release's publish does to its entries, inside the caller's transaction, through the entries
 * store (the mint and the bulk unpublish: the same writers as single and bulk publishes): every
 * `publish` item's current working draft becomes a new version, every published `unpublish` item goes
 * back to draft. Shared by the publish (./publish.ts) and the preview (./preview.ts), so a preview
 * shows exactly what the publish would do.
 */

export interface AppliedItem {
  item: ReleaseItemRow;
  collection: CollectionSchema;
  /** The entry as the release leaves it. */
  entry: EntryRow;
  /** The version the publish made (publish items). */
  version: number | null;
  /** Whether the entry changed (an unpublish of an entry not published changes nothing). */
  changed: boolean;
}

export interface ApplyOptions {
  /**
   * strict (publish): any problem fails the whole release with `items.<n>.<field>` errors.
   * lenient (preview): an item whose entry is gone is left out, as it would be absent anyway.
   */
  strict: boolean;
}

/** Locks every entry of the release in id order (as every multi-row entry write does, so they queue instead of deadlocking). */
async function lockEntries(tx: Tx, ctx: Ctx, release: ReleaseRow): Promise<Map<string, EntryRow>> {
  const uuids = release.items.map((i) => i.entryUuid);
  if (uuids.length === 0) return new Map();
  const rows = await selectEntries(
    tx,
    Prisma.sql`e.uuid = ANY(${uuids}::uuid[]) AND e.project_id = ${ctx.project.id} AND e.deleted_at IS NULL`,
    Prisma.sql`ORDER BY e.id FOR UPDATE`,
  );
  return new Map(rows.map((r) => [r.uuid, r]));
}

/** Required fields the working draft lacks (a field may have become required after the draft was saved). */
function checkDraft(collection: CollectionSchema, row: EntryRow, key: string, bag: ErrorBag): void {
  const data = (row.data ?? {}) as Record<string, unknown>;
  for (const f of collection.fields) {
    if (f.validations.required?.status && isEmptyValue(data[f.name])) bag.add(`${key}.data.${f.name}`, requiredMessage(f));
  }
}

export async function applyRelease(tx: Tx, ctx: Ctx, release: ReleaseRow, opts: ApplyOptions): Promise<AppliedItem[]> {
  const bag = new ErrorBag();
  const loaders = contentLoaders(ctx);
  const entries = await lockEntries(tx, ctx, release);
  const planned: Array<{ item: ReleaseItemRow; collection: CollectionSchema; row: EntryRow }> = [];
  for (const [n, item] of release.items.entries()) {
    const key = `items.${n}`;
    const collection = await loaders.collectionById.load(item.collectionId);
    const row = entries.get(item.entryUuid);
    if (!collection || !row || row.collectionId !== item.collectionId) {
      bag.add(`${key}.uuid`, `The entry ${item.entryUuid} no longer exists in '${item.collection.slug}' (deleted or trashed).`);
      continue;
    }
    if (item.locale && item.locale !== row.locale) {
      bag.add(`${key}.locale`, `The entry's locale is now '${row.locale}', not '${item.locale}'.`);
      continue;
    }
    if (item.action === 'publish' && opts.strict) checkDraft(collection, row, key, bag);
    planned.push({ item, collection, row });
  }
  if (opts.strict) bag.throwIfAny('The release cannot be published: some of its items fail.');

  const toPublish = planned.filter((p) => p.item.action === 'publish');
  const toUnpublish = planned.filter((p) => p.item.action === 'unpublish' && isPublished(p.row));
  const minted = await mintEntries(tx, ctx, toPublish.map((p) => ({ entryId: p.row.id, collectionId: p.row.collectionId })));
  const unpublished = new Map((await unpublishRows(tx, toUnpublish.map((p) => p.row))).map((r) => [r.id, r]));
  const mintedById = new Map(minted.map((m) => [m.entry.id, m]));
  // Relation targets may be entries this release just published or unpublished.
  loaders.entryByUuid.clearAll();
  return planned.map((p) => {
    const m = mintedById.get(p.row.id);
    if (m) return { ...p, entry: m.entry as EntryRow, version: m.version.versionNumber, changed: true };
    const u = unpublished.get(p.row.id);
    return { ...p, entry: u ?? p.row, version: null, changed: u !== undefined };
  });
}
