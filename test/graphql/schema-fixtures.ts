import { buildCollectionSchema, type CollectionSchema, type FieldOptions, type FieldType, type FieldValidations } from '../../src/collections/model.ts';
import type { Collection, Field } from '../../src/db/generated/prisma/client.ts';

export interface FieldSpec {
  name: string;
  type: FieldType;
  options?: FieldOptions;
  validations?: FieldValidations;
  children?: FieldSpec[];
}

let nextFieldId = 1;

/** An in-memory collection schema (no database): for tests and benchmarks of the schema build. */
export function collectionSchema(id: number, slug: string, fields: FieldSpec[], opts: { isSingleton?: boolean; name?: string } = {}): CollectionSchema {
  const now = new Date('2026-01-01T00:00:00Z');
  const row: Collection = { id, uuid: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`, projectId: 1, name: opts.name ?? slug, slug, isSingleton: opts.isSingleton ?? false, order: id, createdAt: now, updatedAt: now, searchFields: [] };
  const rows: Field[] = [];
  let order = 0;
  const add = (f: FieldSpec, parentFieldId: number | null) => {
    const fid = nextFieldId++;
    rows.push({
      id: fid,
      uuid: `00000000-0000-4000-9000-${String(fid).padStart(12, '0')}`,
      collectionId: id,
      parentFieldId,
      type: f.type,
      label: f.name,
      name: f.name,
      description: null,
      placeholder: null,
      options: (f.options ?? {}) as object,
      validations: (f.validations ?? {}) as object,
      order: order++,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    });
    for (const c of f.children ?? []) add(c, fid);
  };
  for (const f of fields) add(f, null);
  return buildCollectionSchema(row, rows);
}

/** A project of `collections` collections with `fieldsPerCollection` fields of every type, related to each other. */
export function largeProject(collections: number, fieldsPerCollection: number): CollectionSchema[] {
  const kinds: Array<(i: number, c: number) => FieldSpec> = [
    (i) => ({ name: `title-${i}`, type: 'text' }),
    (i) => ({ name: `body-${i}`, type: 'richtext' }),
    (i) => ({ name: `count-${i}`, type: 'number' }),
    (i) => ({ name: `flag-${i}`, type: 'boolean' }),
    (i) => ({ name: `status-${i}`, type: 'enumeration', options: { enumeration: { list: ['draft review', 'in-progress', 'done'] } } }),
    (i) => ({ name: `day-${i}`, type: 'date' }),
    (i) => ({ name: `cover-${i}`, type: 'media', options: { media: { type: 1 } } }),
    (i, c) => ({ name: `link-${i}`, type: 'relation', options: { relation: { collection: ((c + 1) % collections) + 1, type: 2 } } }),
    (i) => ({ name: `meta-${i}`, type: 'json' }),
    (i) => ({ name: `seo-${i}`, type: 'group', children: [{ name: 'title', type: 'text' }, { name: 'tags', type: 'text', options: { repeatable: true } }] }),
  ];
  return Array.from({ length: collections }, (_, c) =>
    collectionSchema(c + 1, `collection-${c + 1}-items`, Array.from({ length: fieldsPerCollection }, (_, i) => kinds[i % kinds.length](i, c))),
  );
}
