import { createRequire } from 'node:module';
import type { GraphQLNamedType, GraphQLObjectType, GraphQLSchema } from 'graphql';
import { ABILITIES, holds, type Ability } from '../../../abilities.ts';

/**
 * Variants of a schema without some of its root fields, and without the types only those fields
 * reached, so introspection (and GraphiQL's docs and completion) show a caller only what it may call.
 * Everything else (types, resolvers, extensions, directives) is the same objects.
 */

/**
 * graphql's CommonJS build, the one the core schema's types come from (under vitest an `import`
 * resolves to the ESM build, whose `instanceof` checks would refuse them; see
 * src/graphql/subscriptions/execute.ts).
 */
const graphql = createRequire(import.meta.url)('graphql') as typeof import('graphql');

type Extensions = Readonly<Record<string, unknown>> | null | undefined;

/** Named types reachable from `roots`: through fields, arguments, input fields, union members and interface implementations. */
function reachable(schema: GraphQLSchema, roots: ReadonlyArray<GraphQLNamedType>): Set<string> {
  const seen = new Set<string>();
  const queue = [...roots];
  const visit = (t: GraphQLNamedType) => {
    if (!seen.has(t.name)) queue.push(t);
  };
  for (const directive of schema.getDirectives()) for (const arg of directive.args) visit(graphql.getNamedType(arg.type));
  while (queue.length > 0) {
    const t = queue.pop()!;
    if (seen.has(t.name)) continue;
    seen.add(t.name);
    if (graphql.isObjectType(t) || graphql.isInterfaceType(t)) {
      for (const f of Object.values(t.getFields())) {
        visit(graphql.getNamedType(f.type));
        for (const a of f.args) visit(graphql.getNamedType(a.type));
      }
      for (const i of t.getInterfaces()) visit(i);
      if (graphql.isInterfaceType(t)) for (const impl of schema.getPossibleTypes(t)) visit(impl);
    } else if (graphql.isInputObjectType(t)) {
      for (const f of Object.values(t.getFields())) visit(graphql.getNamedType(f.type));
    } else if (graphql.isUnionType(t)) {
      for (const m of t.getTypes()) visit(m);
    }
  }
  return seen;
}

function withoutFields(type: GraphQLObjectType | null | undefined, drop: (extensions: Extensions) => boolean): GraphQLObjectType | null | undefined {
  if (!type) return type;
  const config = type.toConfig();
  const fields = Object.fromEntries(Object.entries(config.fields).filter(([, f]) => !drop(f.extensions)));
  if (Object.keys(fields).length === Object.keys(config.fields).length) return type;
  // A root type without fields is no type at all (a schema may have no mutation type; never an empty one).
  return Object.keys(fields).length === 0 ? null : new graphql.GraphQLObjectType({ ...config, fields });
}

/** `schema` without the root fields `drop` picks by their extensions (the same schema when it picks none). */
export function withoutRootFields(schema: GraphQLSchema, drop: (extensions: Extensions) => boolean): GraphQLSchema {
  const config = schema.toConfig();
  // A schema needs a query type: when every query would go (a write-only token), the queries stay
  // and answer their refusal when run.
  const query = withoutFields(config.query, drop) ?? config.query;
  const mutation = withoutFields(config.mutation, drop);
  const subscription = withoutFields(config.subscription, drop);
  if (query === config.query && mutation === config.mutation && subscription === config.subscription) return schema;
  const roots = (s: Array<GraphQLObjectType | null | undefined>) => s.filter((t): t is GraphQLObjectType => !!t);
  const before = reachable(schema, roots([config.query, config.mutation, config.subscription]));
  const after = reachable(schema, roots([query, mutation, subscription]));
  const rootNames = new Set(roots([config.query, config.mutation, config.subscription]).map((t) => t.name));
  // Types nothing reached (kept by the builder on its own) stay; those only dropped fields reached go.
  const types = config.types.filter((t) => !rootNames.has(t.name) && (!before.has(t.name) || after.has(t.name)));
  return new graphql.GraphQLSchema({ ...config, query: query ?? undefined, mutation: mutation ?? undefined, subscription: subscription ?? undefined, types });
}

const byGrants = new WeakMap<GraphQLSchema, Map<string, GraphQLSchema>>();
const fullOf = new WeakMap<GraphQLSchema, GraphQLSchema>();

/**
 * The schema a token with `grants` may call: without the root fields whose `ability` extension it
 * does not hold (collection and project administration for a reader, writes for a read-only token).
 * Made once per schema and set of grants.
 */
export function schemaForGrants(schema: GraphQLSchema, grants: readonly string[]): GraphQLSchema {
  const missing = ABILITIES.filter((a) => !holds(grants, a));
  if (missing.length === 0) return schema;
  const key = missing.join(',');
  let variants = byGrants.get(schema);
  const hit = variants?.get(key);
  if (hit) return hit;
  const variant = withoutRootFields(schema, (ext) => typeof ext?.ability === 'string' && missing.includes(ext.ability as Ability));
  if (!variants) byGrants.set(schema, (variants = new Map()));
  variants.set(key, variant);
  if (variant !== schema) fullOf.set(variant, schema);
  return variant;
}

/**
 * For a variant of `schemaForGrants`, the ability a root field of `operation` it left out requires
 * (so a document naming it is told why, not only that the field is unknown); undefined for a field
 * the variant has or no variant dropped.
 */
export function droppedFieldAbility(variant: GraphQLSchema, operation: 'query' | 'mutation' | 'subscription', fieldName: string): Ability | undefined {
  const full = fullOf.get(variant);
  if (!full) return undefined;
  const rootOf = (s: GraphQLSchema) => (operation === 'query' ? s.getQueryType() : operation === 'mutation' ? s.getMutationType() : s.getSubscriptionType());
  if (rootOf(variant)?.getFields()[fieldName]) return undefined;
  const ability = rootOf(full)?.getFields()[fieldName]?.extensions?.ability;
  return typeof ability === 'string' && (ABILITIES as readonly string[]).includes(ability) ? (ability as Ability) : undefined;
}
