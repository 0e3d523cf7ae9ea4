import SchemaBuilder from '@pothos/core';
import AddGraphQLPlugin from '@pothos/plugin-add-graphql';
import type { GraphQLSchema } from 'graphql';
import type { GraphQLContext } from '../../context.ts';

export interface TypedTypes {
  Context: GraphQLContext;
  Scalars: {
    JSON: { Input: unknown; Output: unknown };
    DateTime: { Input: Date; Output: Date | string };
  };
}

export type TypedBuilder = PothosSchemaTypes.SchemaBuilder<PothosSchemaTypes.ExtendDefaultTypes<TypedTypes>>;

/**
 * A fresh builder per build (Pothos builders are not reusable once built). The core schema is
 * added whole (plugin-add-graphql): its types keep their resolvers and its Query/Mutation fields
 * sit beside the generated ones, so one schema answers both the generic and the typed operations.
 * Cost annotations are plain `extensions.complexity` on the few fields that need one (read by
 * src/graphql/plugins/validation/use-query-limits.ts with @pothos/plugin-complexity's calculator): running the complexity plugin
 * over every field would cost a build ~10 % for defaults the calculator applies anyway.
 */
export function newTypedBuilder(core: GraphQLSchema): TypedBuilder {
  // Cast: plugin-prisma's global option types (loaded by the core builder) would demand a
  // `prisma` option here, though this builder does not use that plugin.
  return new SchemaBuilder<TypedTypes>({
    plugins: [AddGraphQLPlugin],
    add: { schema: core },
  } as never);
}
