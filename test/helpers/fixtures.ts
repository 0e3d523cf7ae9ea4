import type { Tx } from '../../src/db/client.ts';
import type { FieldOptions, FieldType, FieldValidations } from '../../src/collections/model.ts';

export interface FieldSpec {
  name: string;
  type: FieldType;
  label?: string;
  options?: FieldOptions;
  validations?: FieldValidations;
  children?: FieldSpec[];
}

/**
 * Inserts a collection and its fields straight into the database, for tests of other domains that
 * need a content model without going through the collections API.
 */
export async function createCollection(
  db: Tx,
  projectId: number,
  spec: { slug: string; name?: string; isSingleton?: boolean; fields: FieldSpec[] },
) {
  const c = await db.collection.create({
    data: { projectId, slug: spec.slug, name: spec.name ?? spec.slug, isSingleton: spec.isSingleton ?? false },
  });
  let order = 0;
  const insert = async (f: FieldSpec, parentFieldId: number | null): Promise<void> => {
    const row = await db.field.create({
      data: {
        collectionId: c.id,
        parentFieldId,
        type: f.type,
        name: f.name,
        label: f.label ?? f.name,
        options: (f.options ?? {}) as object,
        validations: (f.validations ?? {}) as object,
        order: order++,
      },
    });
    for (const child of f.children ?? []) await insert(child, row.id);
  };
  for (const f of spec.fields) await insert(f, null);
  return c;
}
