import type { GraphQLSchema } from 'graphql';
import { withoutRootFields } from './schema-variant.ts';

/**
 * The release operations of the core schema (the `releases` and `release` queries, the release
 * mutations, the `releaseChanged` subscription) carry this in their extensions. A token limited to
 * collections may use none of them (src/releases/operations/access.ts, `releasesInScope`), so its
 * typed schema leaves them out rather than listing operations that answer 403. The `release`
 * argument of the typed reads (a preview) follows the collection rules and stays.
 */
export const RELEASE_OPERATION = { releaseOperation: true } as const;

const isReleaseOperation = (extensions: Readonly<Record<string, unknown>> | null | undefined): boolean => extensions?.releaseOperation === true;

const variants = new WeakMap<GraphQLSchema, GraphQLSchema>();

/**
 * `core` without its release operations, and without the types only they reached (`Release`,
 * `ReleasePage`, their inputs and enums), so introspection shows nothing of releases. Everything
 * else (types, resolvers, extensions, directives) is the same objects. Made once per core schema.
 */
export function coreWithoutReleases(core: GraphQLSchema): GraphQLSchema {
  let variant = variants.get(core);
  if (variant) return variant;
  variant = withoutRootFields(core, isReleaseOperation);
  variants.set(core, variant);
  return variant;
}
