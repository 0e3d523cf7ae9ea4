import { Kind, getOperationAST, valueFromASTUntyped, type ExecutionResult, type FieldNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { holds } from '../auth/abilities.ts';
import { ReadCache, type CacheScope, type ReadDependency } from '../edge/read-cache.ts';
import type { GraphQLContext } from './builder.ts';

/**
 * Query fields whose answers depend only on the project's content (entries, their versions, assets,
 * collections and fields) are marked `extensions: { contentRead: true }`. Those are exactly the rows
 * the content generation covers (migration 20261122180000), so their results can be cached by it.
 */
export const CONTENT_READ = { contentRead: true } as const;

/** Where a root field's collection comes from: its slug, or the string argument of that name. */
export type CollectionSource = string | { argument: string };

/**
 * A content-read root field that shows the entries of one collection (and what they hydrate): its
 * cached answers are keyed by that collection's generations only (migration 20261126000000).
 * `draft`: the field always reads working drafts (trash); otherwise its `state` argument decides.
 */
export const collectionRead = (collection: CollectionSource, draft = false) => ({ ...CONTENT_READ, collectionRead: { collection, draft } });

interface CollectionReadExtension {
  collection: CollectionSource;
  draft: boolean;
}

export function cacheableOperation(schema: GraphQLSchema, operation: OperationDefinitionNode | undefined): boolean {
  if (!operation || operation.operation !== 'query') return false;
  const fields = schema.getQueryType()?.getFields();
  if (!fields) return false;
  let any = false;
  for (const selection of operation.selectionSet.selections) {
    // Root fragments and directives could hide any field: not worth resolving here.
    if (selection.kind !== Kind.FIELD || selection.directives?.length) return false;
    if (selection.name.value === '__typename') continue;
    if (fields[selection.name.value]?.extensions?.contentRead !== true) return false;
    any = true;
  }
  return any;
}

function argumentValue(field: FieldNode, name: string, variables: Readonly<Record<string, unknown>>): unknown {
  const arg = field.arguments?.find((a) => a.name.value === name);
  return arg ? valueFromASTUntyped(arg.value, variables) : undefined;
}

/**
 * The collections (and states) a cacheable operation's root fields read, or null when one of them
 * reads something else (assets, collections) or a collection this cannot tell: such documents are
 * keyed by the project-wide generation. Nested selections need nothing here: a collection's
 * generations also move with every collection its relations lead to. `variables` are the coerced
 * ones (defaults applied), as execution sees them.
 */
export function readDependencies(schema: GraphQLSchema, operation: OperationDefinitionNode, variables: Readonly<Record<string, unknown>>): ReadDependency[] | null {
  const fields = schema.getQueryType()?.getFields();
  if (!fields) return null;
  const reads: ReadDependency[] = [];
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) return null;
    if (selection.name.value === '__typename') continue;
    const read = fields[selection.name.value]?.extensions?.collectionRead as CollectionReadExtension | undefined;
    if (!read) return null;
    const collection = typeof read.collection === 'string' ? read.collection : argumentValue(selection, read.collection.argument, variables);
    if (typeof collection !== 'string') return null;
    // Typed and core fields alike read drafts only for exactly `draft` (anything else is published).
    const state = read.draft || argumentValue(selection, 'state', variables) === 'draft' ? 'draft' : 'published';
    reads.push({ collection, state });
  }
  return reads;
}

/** What the read cache keys a GraphQL answer by (besides the generations): the operation as sent. */
export interface GraphQLRead {
  schema: GraphQLSchema;
  operation: OperationDefinitionNode;
  operationName?: string | null;
  variables: Readonly<Record<string, unknown>>;
  query: string;
}

/** The cache key of a cacheable operation's answer for `ctx`, or null when it has no generations. */
export function graphqlReadKey(cache: ReadCache<{ json: string }>, ctx: CacheScope, read: GraphQLRead): string | null {
  const reads = readDependencies(read.schema, read.operation, read.variables);
  return cache.keyForReads(ctx, reads, 'graphql', read.operationName ?? '', JSON.stringify(read.variables), read.query);
}

/**
 * Yoga plugin: results of content-read queries by (project, the generations of what they read,
 * schema revision, query text, variables, operation name). A hit skips execution entirely; a result
 * with errors is never stored. The token must still hold `read` for a hit: abilities are checked per
 * request, not baked into the cached answer. `cache` may be the process's (for its counters).
 */
export function useContentReadCache(cacheOrBytes: number | ReadCache<{ json: string }>): Plugin<GraphQLContext> {
  // Results are kept as JSON text: one string per entry is what the size estimate measures, and the
  // garbage collector never walks it, where a cached object graph of every result would make each
  // major collection slower as the cache fills. A hit pays one JSON.parse.
  const cache = typeof cacheOrBytes === 'number' ? new ReadCache<{ json: string }>(cacheOrBytes, (r) => 2 * r.json.length) : cacheOrBytes;
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as GraphQLContext & { params?: { query?: string } };
      const query = context.params?.query;
      const operation = getOperationAST(args.document, args.operationName) ?? undefined;
      if (!query || !operation || !cacheableOperation(args.schema, operation)) return;
      const ctx = await context.auth().catch(() => undefined);
      if (!ctx || ctx.actor.kind !== 'token' || !holds(ctx.actor.abilities, 'read')) return;
      const key = graphqlReadKey(cache, ctx, { schema: args.schema, operation, operationName: args.operationName, variables: args.variableValues ?? {}, query });
      if (!key) return;
      const hit = cache.get(key) ?? (await cache.waitFor(key));
      if (hit) {
        setResultAndStopExecution(JSON.parse(hit.json) as ExecutionResult);
        return;
      }
      const done = cache.begin(key);
      return {
        onExecuteDone({ result }) {
          done?.(Symbol.asyncIterator in result || result.errors?.length ? undefined : { json: JSON.stringify(result) });
        },
      };
    },
  };
}
