import type { Collection, Field } from '../db/generated/prisma/client.ts';
import type { Tx } from '../db/client.ts';
import { notFound } from '../errors.ts';

/** The 16 field types (docs/foundation.md). */
export const FIELD_TYPES = [
  'text',
  'longtext',
  'richtext',
  'slug',
  'email',
  'password',
  'number',
  'enumeration',
  'boolean',
  'color',
  'date',
  'time',
  'media',
  'relation',
  'json',
  'group',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Validation rules as stored (docs/foundation.md). */
export interface FieldValidations {
  required?: { status: boolean; message?: string };
  unique?: { status: boolean; message?: string };
  charcount?: { status: boolean; type: 'Between' | 'Min' | 'Max'; min?: number; max?: number; message?: string };
}

/** Type-specific options as stored (docs/foundation.md). */
export interface FieldOptions {
  hideInContentList?: boolean;
  hiddenInAPI?: boolean;
  repeatable?: boolean;
  editor?: { type?: number; outputFormat?: 'html' | 'markdown' };
  slug?: { field?: string | null; readonly?: boolean };
  enumeration?: { list: string[] };
  multiple?: boolean;
  includeTime?: boolean;
  mode?: 'single' | 'range';
  media?: { type: 1 | 2 };
  /** `collection` is the target collection's internal id once stored. */
  relation?: { collection: number; type: 1 | 2 };
  includeDraft?: boolean;
  /** Text-like fields: false leaves the field out of full-text search (default true). */
  searchable?: boolean;
}

/** A live (not soft-deleted) field with its group children, as every domain reads it. */
export interface FieldDef {
  id: number;
  uuid: string;
  name: string;
  label: string;
  type: FieldType;
  description?: string | null;
  placeholder?: string | null;
  options: FieldOptions;
  validations: FieldValidations;
  order: number;
  parentFieldId: number | null;
  children: FieldDef[];
  /**
   * Set only on the copy a scoped token sees (src/collections/token-scope.ts): the field exists, but
   * not for this caller, so it is neither shown, nor filterable, nor writable.
   */
  outOfScope?: true;
}

/** A collection with its field tree: the schema every entry operation validates against. */
export interface CollectionSchema {
  id: number;
  uuid: string;
  projectId: number;
  slug: string;
  name: string;
  isSingleton: boolean;
  row: Collection;
  /** Top-level fields in order; group children hang under `children`. */
  fields: FieldDef[];
  /** Top-level fields by name. */
  byName: Map<string, FieldDef>;
}

export function toFieldDef(f: Field, children: FieldDef[] = []): FieldDef {
  return {
    id: f.id,
    uuid: f.uuid,
    name: f.name,
    label: f.label,
    type: f.type as FieldType,
    description: f.description,
    placeholder: f.placeholder,
    options: (f.options ?? {}) as FieldOptions,
    validations: (f.validations ?? {}) as FieldValidations,
    order: f.order,
    parentFieldId: f.parentFieldId,
    children,
  };
}

export function buildCollectionSchema(c: Collection, fields: Field[]): CollectionSchema {
  const live = fields.filter((f) => !f.deletedAt).sort((a, b) => a.order - b.order || a.id - b.id);
  const childrenOf = new Map<number, FieldDef[]>();
  for (const f of live) {
    if (f.parentFieldId != null) {
      const list = childrenOf.get(f.parentFieldId) ?? [];
      list.push(toFieldDef(f));
      childrenOf.set(f.parentFieldId, list);
    }
  }
  const top = live.filter((f) => f.parentFieldId == null).map((f) => toFieldDef(f, childrenOf.get(f.id) ?? []));
  return {
    id: c.id,
    uuid: c.uuid,
    projectId: c.projectId,
    slug: c.slug,
    name: c.name,
    isSingleton: c.isSingleton,
    row: c,
    fields: top,
    byName: new Map(top.map((f) => [f.name, f])),
  };
}

/** Loads a collection of the project by slug, or 404 `Collection not found.` */
export async function loadCollectionBySlug(db: Tx, projectId: number, slug: string): Promise<CollectionSchema> {
  const c = await db.collection.findUnique({
    where: { projectId_slug: { projectId, slug } },
    include: { fields: { where: { deletedAt: null } } },
  });
  if (!c) throw notFound('Collection not found.');
  return buildCollectionSchema(c, c.fields);
}

export async function loadCollectionById(db: Tx, projectId: number, id: number): Promise<CollectionSchema> {
  const c = await db.collection.findFirst({ where: { id, projectId }, include: { fields: { where: { deletedAt: null } } } });
  if (!c) throw notFound('Collection not found.');
  return buildCollectionSchema(c, c.fields);
}
