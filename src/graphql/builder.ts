import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type PrismaTypes from '../db/generated/pothos-types.ts';
import { getDatamodel } from '../db/generated/pothos-types.ts';
import type { EdgeServices } from '../edge/services.ts';
import type { Ctx } from '../context.ts';

/** GraphQL context: authentication is lazy so introspection (GraphiQL) works before headers are set. */
export interface GraphQLContext {
  services: EdgeServices;
  request: Request;
  /** Authenticates on first call (400/401 as AppError) and memoises the operation context. */
  auth(): Promise<Ctx>;
}

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  Scalars: {
    JSON: { Input: unknown; Output: unknown };
    DateTime: { Input: Date; Output: Date | string };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [PrismaPlugin],
  defaultFieldNullability: false,
  prisma: {
    client: (ctx) => ctx.services.database.prisma,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
});

builder.addScalarType('JSON', JSONResolver);
builder.addScalarType('DateTime', DateTimeResolver);
builder.queryType({});
builder.mutationType({});
