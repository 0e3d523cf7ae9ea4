import { createRequire } from 'node:module';
import type { GraphQLNamedType, GraphQLObjectType, GraphQLSchema } from 'graphql';

/**
 * The release operations of the core schema (the `releases` and `release` queries, the release
 * mutations, the `releaseChanged` subscription) carry this in their extensions. A token limited to
 * collections may use none of them (src/releases/operations/access.ts, `releasesInScope`), so its
 * typed schema leaves them out rather than listing operations that answer 403. The `release`
 * argument of the typed reads (a preview) follows the collection rules and stays.
 */
export const RELEASE_OPERATION = { releaseOperation: true } as const;

/**
 * graphql's CommonJS build, the one the core schema's types come from (under vitest an `import`
 * resolves to the ESM build, whose `instanceof` checks would refuse them; see
 * src/graphql/subscriptions/execute.ts).
 */
const graphql = createRequire(import.meta.url)('graphql') as typeof import('graphql');

const isReleaseOperation = (extensions: Readonly<Record<string, unknown>> | null | undefined): boolean => extensions?.releaseOperation === true;

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

function withoutReleaseFields(type: GraphQLObjectType | null | undefined): GraphQLObjectType | undefined {
  if (!type) return undefined;
  const config = type.toConfig();
  const fields = Object.fromEntries(Object.entries(config.fields).filter(([, f]) => !isReleaseOperation(f.extensions)));
  return Object.keys(fields).length === Object.keys(config.fields).length ? type : new graphql.GraphQLObjectType({ ...config, fields });
}

const variants = new WeakMap<GraphQLSchema, GraphQLSchema>();

/**
 * `core` without its release operations, and without the types only they reached (`Release`,
 * `ReleasePage`, their inputs and enums), so introspection shows nothing of releases. Everything
 * else (types, resolvers, extensions, directives) is the same objects. Made once per core schema.
 */
export function coreWithoutReleases(core: GraphQLSchema): GraphQLSchema {
  let variant = variants.get(core);
  if (variant) return variant;
  const config = core.toConfig();
  const query = withoutReleaseFields(config.query);
  const mutation = withoutReleaseFields(config.mutation);
  const subscription = withoutReleaseFields(config.subscription);
  const roots = (s: Array<GraphQLObjectType | null | undefined>) => s.filter((t): t is GraphQLObjectType => !!t);
  const before = reachable(core, roots([config.query, config.mutation, config.subscription]));
  const after = reachable(core, roots([query, mutation, subscription]));
  const rootNames = new Set(roots([config.query, config.mutation, config.subscription]).map((t) => t.name));
  // Types nothing reached (kept by the builder on its own) stay; those only release operations reached go.
  const types = config.types.filter((t) => !rootNames.has(t.name) && (!before.has(t.name) || after.has(t.name)));
  variant = new graphql.GraphQLSchema({ ...config, query, mutation, subscription, types });
  variants.set(core, variant);
  return variant;
}
