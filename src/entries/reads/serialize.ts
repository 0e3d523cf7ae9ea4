import type { Asset } from '../../db/generated/prisma/client.ts';
import type { Ctx } from '../../context.ts';
import type { CollectionSchema, FieldDef } from '../../collections/model.ts';
import { serializeAsset } from '../../assets/serialize.ts';
import { contentLoaders } from './loaders.ts';
import { renderMarkdown } from '../values/richtext.ts';
import type { EntryData, EntryResource, ReadOptions, ReadState } from '../types.ts';
import { instantText, type ReadRow } from './read-rows.ts';
import { isVisibleField, ownValue } from '../../collections/visibility.ts';
import { resolveTargetsAlongChain } from './fallback.ts';

export type { EntryResource, ReadOptions, ReadState } from '../types.ts';

/** The stored fields a read of `state` serves: the working draft or the published copy. */
export function sourceData(row: Pick<ReadRow, 'data' | 'publishedData'>, state: ReadState): EntryData {
  const value = state === 'draft' ? row.data : row.publishedData;
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as EntryData) : {};
}

/**
 * Calls `visit` for every stored value of `fields` in `data` that a read may show (src/collections/visibility.ts),
 * group children included: only what is rendered needs its references loaded.
 */
export function forEachVisibleValue(fields: FieldDef[], data: EntryData, visit: (field: FieldDef, value: unknown) => void): void {
  for (const field of fields) {
    if (!isVisibleField(field)) continue;
    const value = ownValue(data, field.name);
    if (value === undefined || value === null) continue;
    if (field.type === 'group') {
      const items = Array.isArray(value) ? value : [value];
      for (const item of items) if (item && typeof item === 'object' && !Array.isArray(item)) forEachVisibleValue(field.children, item as EntryData, visit);
    } else {
      visit(field, value);
    }
  }
}

const refsOf = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');

interface RenderContext {
  assets: Map<string, Asset>;
  publicUrl?: string;
  timestamps: boolean;
  /** Only top-level entries hydrate relations; nested entries keep UUIDs, which also stops cycles. */
  nested?: (field: FieldDef, uuid: string) => EntryResource | null;
}

function renderValue(field: FieldDef, value: unknown, r: RenderContext): unknown {
  if (value === undefined || value === null) return null;
  switch (field.type) {
    case 'richtext':
      return typeof value === 'string' && (field.options.editor?.outputFormat ?? 'html') === 'html' ? renderMarkdown(value) : value;
    case 'media': {
      const toAsset = (uuid: string) => {
        const a = r.assets.get(uuid.toLowerCase());
        return a ? serializeAsset(a, r.publicUrl) : null;
      };
      if (Array.isArray(value)) return refsOf(value).map(toAsset).filter((a) => a !== null);
      return typeof value === 'string' ? toAsset(value) : null;
    }
    case 'relation': {
      if (!r.nested) return value;
      const nested = r.nested;
      if (Array.isArray(value)) return refsOf(value).map((u) => nested(field, u)).filter((e) => e !== null);
      return typeof value === 'string' ? nested(field, value) : null;
    }
    case 'group': {
      const one = (item: unknown) =>
        item && typeof item === 'object' && !Array.isArray(item) ? renderFields(field.children, item as EntryData, r) : null;
      if (field.options.repeatable) return Array.isArray(value) ? value.map(one).filter((v) => v !== null) : [];
      return one(value);
    }
    default:
      return value;
  }
}

/** Every schema field appears (null when unset) except those the visibility rule hides (and `exclude`). */
function renderFields(fields: FieldDef[], data: EntryData, r: RenderContext, exclude?: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    if (!isVisibleField(field) || exclude?.has(field.name)) continue;
    out[field.name] = renderValue(field, ownValue(data, field.name), r);
  }
  return out;
}

/**
 * A published view describes the published version, not the working draft beside it, so that
 * saving a draft changes no published read (docs/entries.md: "Published reads are stable until the next
 * publish"; docs/entries.md, "What a published read shows"): `is_draft_dirty` is false (the draft a
 * published read shows nothing of) and `updated_at` is when the published version was made.
 */
function resource(row: ReadRow, fields: Record<string, unknown>, timestamps: boolean, view: ReadState, requestedLocale?: string): EntryResource {
  const published = view === 'published';
  const res: EntryResource = {
    id: row.id,
    uuid: row.uuid,
    locale: row.locale,
    state: row.state,
    published_at: row.publishedAt ? instantText(row.publishedAt) : null,
    published_version_id: row.publishedVersionId,
    published_version_number: row.publishedVersionNumber,
    is_draft_dirty: published ? false : row.isDraftDirty,
    fields,
  };
  if (timestamps) {
    res.created_at = instantText(row.createdAt);
    res.updated_at = instantText(published ? (row.publishedUpdatedAt ?? row.updatedAt) : row.updatedAt);
  }
  if (requestedLocale !== undefined) res.meta = { requested_locale: requestedLocale };
  return res;
}

/**
 * Entry resources for many rows of one collection, with relations hydrated to nested entries and media
 * to asset objects. Everything referenced is loaded through the request's DataLoaders: one query for
 * all relation targets, one for their collections, one for all assets, however many rows.
 *
 * Draft reads nest targets' working drafts; published reads nest targets' published copies and leave
 * out targets that have none (unless the relation field sets `includeDraft`, which falls back to the
 * draft). Soft-deleted targets and assets never appear.
 */
export async function serializeEntries(ctx: Ctx, collection: CollectionSchema, rows: ReadRow[], opts: ReadOptions): Promise<EntryResource[]> {
  if (rows.length === 0) return [];
  const loaders = contentLoaders(ctx);
  const datas = rows.map((row) => sourceData(row, opts.state));

  const relationUuids = new Set<string>();
  const mediaUuids = new Set<string>();
  const collect = (field: FieldDef, value: unknown) => {
    if (field.type === 'relation') {
      const target = Number(field.options.relation?.collection);
      if (Number.isSafeInteger(target)) loaders.linkTargets.add(target);
      for (const u of refsOf(value)) relationUuids.add(u.toLowerCase());
    } else if (field.type === 'media') for (const u of refsOf(value)) mediaUuids.add(u.toLowerCase());
  };
  for (const data of datas) forEachVisibleValue(collection.fields, data, collect);

  const targets = new Map<string, ReadRow>();
  if (relationUuids.size) {
    const found = await loaders.entryByUuid.loadMany([...relationUuids]);
    for (const t of found) if (t && !(t instanceof Error)) targets.set(t.uuid, t);
    // A fallback read links, per translation group, the entry of the chain's first locale that has one.
    if (opts.fallback) await resolveTargetsAlongChain(ctx, targets, opts.fallback, opts.state);
  }
  const schemas = new Map<number, CollectionSchema>([[collection.id, collection]]);
  const missing = [...new Set([...targets.values()].map((t) => t.collectionId))].filter((id) => !schemas.has(id));
  if (missing.length) {
    for (const s of await loaders.collectionById.loadMany(missing)) if (s && !(s instanceof Error)) schemas.set(s.id, s);
  }

  /** The fields a nested target shows through `field`, or null when it must be left out. */
  const nestedData = (field: FieldDef, target: ReadRow): EntryData | null => {
    if (opts.state === 'draft') return sourceData(target, 'draft');
    if (target.publishedVersionId !== null) return sourceData(target, 'published');
    // A delivery token reads published content only: `includeDraft` shows it no linked draft.
    return field.options.includeDraft && !ctx.scope?.delivery ? sourceData(target, 'draft') : null;
  };
  const collectNestedMedia = (field: FieldDef, value: unknown) => {
    if (field.type === 'media') for (const u of refsOf(value)) mediaUuids.add(u.toLowerCase());
  };
  for (const data of datas) {
    forEachVisibleValue(collection.fields, data, (field, value) => {
      if (field.type !== 'relation') return;
      for (const u of refsOf(value)) {
        const target = targets.get(u.toLowerCase());
        const schema = target && schemas.get(target.collectionId);
        const d = target && schema ? nestedData(field, target) : null;
        if (d && schema) forEachVisibleValue(schema.fields, d, collectNestedMedia);
      }
    });
  }

  const assets = new Map<string, Asset>();
  if (mediaUuids.size) {
    for (const a of await loaders.assetByUuid.loadMany([...mediaUuids])) if (a && !(a instanceof Error)) assets.set(a.uuid, a);
  }

  const timestamps = opts.timestamps ?? false;
  const requested = opts.fallback?.requested;
  const publicUrl = ctx.services.config.PUBLIC_URL;
  const flat: RenderContext = { assets, publicUrl, timestamps };
  const top: RenderContext = {
    ...flat,
    nested: (field, uuid) => {
      const target = targets.get(uuid.toLowerCase());
      const schema = target && schemas.get(target.collectionId);
      if (!target || !schema) return null;
      const d = nestedData(field, target);
      const view: ReadState = opts.state === 'published' && target.publishedVersionId !== null ? 'published' : 'draft';
      return d ? resource(target, renderFields(schema.fields, d, flat), timestamps, view, requested) : null;
    },
  };
  const exclude = opts.exclude?.length ? new Set(opts.exclude) : undefined;
  const shown = ctx.shown;
  if (shown) {
    // Every link counts, found or not: publishing a linked entry that shows nowhere yet changes this answer too.
    for (const row of rows) shown.entries.add(row.uuid);
    for (const u of relationUuids) shown.entries.add(u);
    for (const t of targets.values()) shown.entries.add(t.uuid);
    for (const s of schemas.values()) shown.collections.add(s.uuid);
    for (const u of mediaUuids) shown.assets.add(u);
  }
  return rows.map((row, i) => resource(row, renderFields(collection.fields, datas[i], top, exclude), timestamps, opts.state, requested));
}

export async function serializeEntry(ctx: Ctx, collection: CollectionSchema, row: ReadRow, opts: ReadOptions): Promise<EntryResource> {
  const [res] = await serializeEntries(ctx, collection, [row], opts);
  return res;
}
