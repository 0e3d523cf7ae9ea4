import { createRequire } from 'node:module';
import type { GraphQLField, GraphQLSchema } from 'graphql';
import { schema as coreSchema } from '../../src/graphql/schema/core/index.ts';
import { buildTypedSchema } from '../../src/graphql/schema/typed/build.ts';
import { collectionSchema } from './schema-fixtures.ts';

// The schemas are built by Pothos, which loads graphql's CJS build; reading them needs the same build.
export const graphql = createRequire(import.meta.url)('graphql') as typeof import('graphql');
const { astFromValue, isObjectType, print } = graphql;

/**
 * The project docs/graphql.md describes: a collection `blog-posts` (every derived name of the
 * typed-schema table) and a singleton `homepage`.
 */
export const documentedProjectSchema = (): GraphQLSchema =>
  buildTypedSchema(coreSchema, [
    collectionSchema(1, 'blog-posts', [
      { name: 'title', type: 'text' },
      { name: 'views', type: 'number' },
    ]),
    collectionSchema(2, 'homepage', [{ name: 'headline', type: 'text' }], { isSingleton: true }),
  ]);

/** `name(arg: Type = default, ...): Type`, arguments in schema order: how the docs write a field. */
export function signatureOf(field: GraphQLField<unknown, unknown>): string {
  const args = field.args.map((a) => {
    const dflt = a.defaultValue === undefined ? undefined : astFromValue(a.defaultValue, a.type);
    return `${a.name}: ${String(a.type)}${dflt ? ` = ${print(dflt)}` : ''}`;
  });
  return `${field.name}${args.length ? `(${args.join(', ')})` : ''}: ${String(field.type)}`;
}

/** A root field of either root type. */
export function rootField(schema: GraphQLSchema, name: string): GraphQLField<unknown, unknown> | undefined {
  for (const root of [schema.getQueryType(), schema.getMutationType()]) {
    const f = root?.getFields()[name];
    if (f) return f;
  }
  return undefined;
}

export function typeFields(schema: GraphQLSchema, name: string): Record<string, GraphQLField<unknown, unknown>> | undefined {
  const type = schema.getType(name);
  return type && isObjectType(type) ? type.getFields() : undefined;
}
