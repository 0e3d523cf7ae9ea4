import type { Collection, Field } from '../db/generated/prisma/client.ts';
import type { CollectionSchema, FieldDef } from './model.ts';

/** Public field document (docs/foundation.md). */
export interface FieldResource {
  id: number;
  uuid: string;
  type: string;
  label: string;
  name: string;
  description: string | null;
  placeholder: string | null;
  options: Record<string, unknown>;
  validations: Record<string, unknown>;
  order: number;
  parent_field_id: number | null;
}

/** Public collection resource: `id` is the internal id webhooks take in `collection_ids`. */
export interface CollectionResource {
  id: number;
  uuid: string;
  name: string;
  slug: string;
  is_singleton: boolean;
  order: number;
  created_at: string;
  updated_at: string;
  fields?: FieldResource[];
}

type FieldLike = Field | FieldDef;

export function serializeField(f: FieldLike): FieldResource {
  return {
    id: f.id,
    uuid: f.uuid,
    type: f.type,
    label: f.label,
    name: f.name,
    description: f.description ?? null,
    placeholder: f.placeholder ?? null,
    options: (f.options ?? {}) as Record<string, unknown>,
    validations: (f.validations ?? {}) as Record<string, unknown>,
    order: f.order,
    parent_field_id: f.parentFieldId,
  };
}

/**
 * Live fields flattened in display order: each top-level field, and right after a group its
 * children (carrying `parent_field_id`).
 */
export function flattenFields(fields: FieldLike[]): FieldResource[] {
  const live = fields.filter((f) => !('deletedAt' in f && f.deletedAt));
  const byOrder = (a: FieldLike, b: FieldLike) => a.order - b.order || a.id - b.id;
  const childrenOf = new Map<number, FieldLike[]>();
  for (const f of live) {
    if (f.parentFieldId == null) continue;
    const list = childrenOf.get(f.parentFieldId) ?? [];
    list.push(f);
    childrenOf.set(f.parentFieldId, list);
  }
  const out: FieldResource[] = [];
  for (const f of live.filter((x) => x.parentFieldId == null).sort(byOrder)) {
    out.push(serializeField(f));
    const kids = 'children' in f && Array.isArray(f.children) && f.children.length ? f.children : (childrenOf.get(f.id) ?? []);
    for (const c of [...kids].sort(byOrder)) out.push(serializeField(c));
  }
  return out;
}

const isSchema = (v: unknown): v is CollectionSchema => typeof v === 'object' && v !== null && 'row' in v && 'byName' in v;

/**
 * The collection resource from a loaded schema (`loadCollectionBySlug`) or a row (optionally with
 * its `fields` included). `withFields` adds the flattened live fields.
 */
export function serializeCollection(
  input: CollectionSchema | Collection | (Collection & { fields?: Field[] }),
  opts: { withFields?: boolean } = {},
): CollectionResource {
  const row: Collection = isSchema(input) ? input.row : input;
  const out: CollectionResource = {
    id: row.id,
    uuid: row.uuid,
    name: row.name,
    slug: row.slug,
    is_singleton: row.isSingleton,
    order: row.order,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
  if (opts.withFields) {
    const fields: FieldLike[] = isSchema(input) ? input.fields : ((input as { fields?: Field[] }).fields ?? []);
    out.fields = flattenFields(fields);
  }
  return out;
}
