import type { FieldDef } from '../../../collections/model.ts';
import { decimalNumber } from '../../../text.ts';
import type { AssetResource } from '../../../assets/resource.ts';
import type { EntryResource } from '../../../entries/types.ts';
import type { GraphQLContext } from '../../context.ts';
import { linkMode, loadLinked } from './loaders.ts';
import { requireContentRead } from '../../../collections/visibility.ts';
import { isRecord, typedEntry, type TypedEntry, type TypedGroup } from './model.ts';
import type { DateRangeValue } from './shared.ts';

/**
 * Reads the rendered values of an entry resource into what the typed fields return. Stored data
 * can predate a field's current definition (a field changed type, an enumeration lost a value): a
 * value that no longer fits the field's GraphQL type reads as null (or is left out of a list)
 * instead of failing the whole query.
 */

const asString = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null);

const asNumber = (v: unknown): number | null => {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && Number.isFinite(decimalNumber(v))) return decimalNumber(v);
  return null;
};

const asBoolean = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null);

const asRange = (v: unknown): DateRangeValue | null => (isRecord(v) ? { start: asString(v.start), end: asString(v.end) } : null);

function listOf<V>(raw: unknown, one: (v: unknown) => V | null): V[] {
  return (Array.isArray(raw) ? raw : [raw]).map(one).filter((v): v is V => v !== null);
}

/** The value of a scalar-like field (everything but media, relation and group). */
export function scalarValue(field: FieldDef, raw: unknown): unknown {
  if (raw === undefined || raw === null) return null;
  const o = field.options;
  switch (field.type) {
    case 'number':
      return o.repeatable ? listOf(raw, asNumber) : asNumber(raw);
    case 'boolean':
      return asBoolean(raw);
    case 'enumeration': {
      const allowed = new Set(o.enumeration?.list ?? []);
      const one = (v: unknown) => (typeof v === 'string' && allowed.has(v) ? v : null);
      return o.multiple ? listOf(raw, one) : one(raw);
    }
    case 'date': {
      const one: (v: unknown) => unknown = o.mode === 'range' ? asRange : asString;
      return o.repeatable ? listOf(raw, one) : Array.isArray(raw) ? null : one(raw);
    }
    case 'json':
      return raw;
    default:
      return o.repeatable && field.type !== 'richtext' ? listOf(raw, asString) : Array.isArray(raw) ? null : asString(raw);
  }
}

export function groupValue(field: FieldDef, raw: unknown, state: TypedGroup['state'], requestedLocale?: string): TypedGroup | TypedGroup[] | null {
  const one = (v: unknown): TypedGroup | null => (isRecord(v) ? (requestedLocale === undefined ? { fields: v, state } : { fields: v, state, requestedLocale }) : null);
  if (field.options.repeatable) return raw === undefined || raw === null ? null : listOf(raw, one);
  return one(raw);
}

const isAsset = (v: unknown): v is AssetResource => isRecord(v) && typeof v.uuid === 'string' && typeof v.url === 'string';

/** Media values are rendered (asset objects) at every level by the content serializer. */
export function mediaValue(field: FieldDef, raw: unknown): AssetResource | AssetResource[] | null {
  if (raw === undefined || raw === null) return null;
  const list = listOf(raw, (v) => (isAsset(v) ? v : null));
  return field.options.media?.type === 2 ? list : (list[0] ?? null);
}

const isResource = (v: unknown): v is EntryResource => isRecord(v) && typeof v.uuid === 'string' && isRecord(v.fields);

/**
 * First-level relations arrive hydrated (entry resources); deeper ones as UUIDs, resolved here
 * through the per-request linked-entry loader.
 */
export async function relationValue(
  context: GraphQLContext,
  field: FieldDef,
  raw: unknown,
  state: TypedEntry['state'],
  targetCollectionId: number,
  requestedLocale?: string,
): Promise<TypedEntry | TypedEntry[] | null> {
  if (raw === undefined || raw === null) return null;
  const items = Array.isArray(raw) ? raw : [raw];
  const uuids = items.filter((v): v is string => typeof v === 'string');
  let loaded = new Map<string, EntryResource>();
  if (uuids.length) {
    const ctx = await context.auth();
    // Entries linked below the first level are a read of their own, also under a write's result.
    requireContentRead(ctx);
    // A fallback read links, at every level, each target's translation in the chain's first locale that has one.
    const found = await loadLinked(ctx, targetCollectionId, linkMode(state, field.options.includeDraft), uuids, requestedLocale);
    loaded = new Map(uuids.flatMap((u, i) => {
      const r = found[i];
      return r && !(r instanceof Error) ? [[u, r] as const] : [];
    }));
  }
  const list: TypedEntry[] = [];
  for (const item of items) {
    const resource = typeof item === 'string' ? loaded.get(item) : isResource(item) ? item : undefined;
    // The read's state carries on down: a published read keeps linking published targets.
    if (resource) list.push(typedEntry(resource, state));
  }
  return field.options.relation?.type === 2 ? list : (list[0] ?? null);
}

