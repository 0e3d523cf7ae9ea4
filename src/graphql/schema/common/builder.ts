import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type PrismaTypes from '../../../db/generated/pothos-types.ts';
import { getDatamodel } from '../../../db/generated/pothos-types.ts';
import type { GraphQLContext } from '../../context.ts';
import { GraphQLError, GraphQLScalarType } from 'graphql';
import { findInputProblem } from '../../../input-problems.ts';

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

/**
 * JSON written inline in a document (`data: { __proto__: 1 }`) never passes the request guard, which
 * reads variables and bodies: its keys and strings are checked here by the same rule, so a literal
 * cannot carry what a variable may not.
 */
builder.addScalarType('JSON', new GraphQLScalarType({
  ...JSONResolver.toConfig(),
  parseLiteral: (ast, variables) => {
    const value: unknown = JSONResolver.parseLiteral(ast, variables);
    const problem = findInputProblem(value, 'JSON');
    if (problem) throw new GraphQLError(problem.message, { nodes: ast, extensions: { code: 'BAD_USER_INPUT' } });
    return value;
  },
}));
builder.addScalarType('DateTime', DateTimeResolver);
builder.queryType({});
builder.mutationType({});
