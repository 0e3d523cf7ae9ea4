import type { GraphQLSchema } from 'graphql';
import type { CollectionSchema, FieldDef } from '../../../collections/model.ts';
import { isVisibleField } from '../../../collections/visibility.ts';
import {
  NameRegistry,
  claimCollectionType,
  claimFieldName,
  collectionNames,
  fieldRegistry,
  pascalCase,
  type CollectionNames,
} from './names.ts';

/** Every GraphQL name one field gets, decided once so the object type, inputs, filters and sort agree. */
export interface FieldLayout {
  def: FieldDef;
  /** Field name on the object type and in every input. */
  name: string;
  /** Shown on the object type, in filters and sorts (src/collections/visibility.ts: passwords and `hiddenInAPI` fields are write-only). */
  output: boolean;
  enumName?: string;
  groupType?: string;
  groupInput?: string;
  children?: FieldLayout[];
}

export interface CollectionLayout {
  schema: CollectionSchema;
  names: CollectionNames;
  fields: FieldLayout[];
}

function layoutFields(owner: string, defs: FieldDef[], registry: NameRegistry, types: NameRegistry): FieldLayout[] {
  return defs.map((def) => {
    const name = claimFieldName(registry, def.name);
    const layout: FieldLayout = { def, name, output: isVisibleField(def) };
    const base = `${owner}${pascalCase(def.name) || 'Field'}`;
    if (def.type === 'enumeration') layout.enumName = types.claim(base);
    if (def.type === 'group') {
      layout.groupType = types.claim(base);
      layout.groupInput = types.claim(`${base}Input`);
      layout.children = layoutFields(layout.groupType, def.children, new NameRegistry(), types);
    }
    return layout;
  });
}

/**
 * Names for a whole project. Claim order (first come, first served): names already taken by the
 * caller (shared types), then every collection's entry type name, then each collection's derived
 * names and field names in collection order.
 */
export function layoutProject(collections: CollectionSchema[], core: GraphQLSchema, types: NameRegistry): CollectionLayout[] {
  const queries = new NameRegistry(Object.keys(core.getQueryType()?.getFields() ?? {}));
  const mutations = new NameRegistry(Object.keys(core.getMutationType()?.getFields() ?? {}));
  const typeNames = collections.map((c) => claimCollectionType(c.slug, types));
  return collections.map((schema, i) => {
    const names = collectionNames(typeNames[i], types, queries, mutations);
    return { schema, names, fields: layoutFields(names.type, schema.fields, fieldRegistry(), types) };
  });
}
