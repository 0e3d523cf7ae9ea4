import type { GraphQLSchema } from 'graphql';
import type { CollectionSchema } from '../../../collections/model.ts';
import { newTypedBuilder } from './builder.ts';
import { defineEntryTypes } from './entry-types.ts';
import { defineInputs } from './inputs.ts';
import { layoutProject } from './layout.ts';
import { typeRegistry } from './names.ts';
import { defineOperations } from './operations/index.ts';
import { defineBulkOperations } from './bulk.ts';
import { defineSharedTypes } from './shared.ts';
import { defineSubscriptions } from './subscriptions.ts';

/**
 * Builds a project's typed schema: the core schema plus, per collection, an object type, its
 * inputs and its root operations. Pure: the same collections give the same SDL.
 */
export function buildTypedSchema(core: GraphQLSchema, collections: CollectionSchema[]): GraphQLSchema {
  if (collections.length === 0) return core;
  const b = newTypedBuilder(core);
  const types = typeRegistry(Object.keys(core.getTypeMap()));
  const shared = defineSharedTypes(b, types, core);
  const layouts = layoutProject(collections, core, types);
  const refs = defineEntryTypes(b, layouts, shared);
  const inputs = defineInputs(b, types, layouts, refs);
  defineOperations(b, types, layouts, refs, inputs);
  defineBulkOperations(b, types, core, layouts, refs, inputs);
  defineSubscriptions(b, types, layouts, refs, inputs);
  return b.toSchema({ sortSchema: false });
}
