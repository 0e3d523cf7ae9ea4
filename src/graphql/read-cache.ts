import { Kind, getOperationAST, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { holds } from '../auth/abilities.ts';
import { ReadCache } from '../edge/read-cache.ts';
import type { GraphQLContext } from './builder.ts';

/**
 * Query fields whose answers depend only on the project's content (entries, their versions, assets,
 * collections and fields) are marked `extensions: { contentRead: true }`. Those are exactly the rows
 * the content generation covers (migration 20261122180000), so their results can be cached by it.
 */
export const CONTENT_READ = { contentRead: true } as const;

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

/**
 * Yoga plugin: results of content-read queries by (project, content generation, schema revision,
 * query text, variables, operation name). A hit skips execution entirely; a result with errors is
 * never stored. The token must still hold `read` for a hit: abilities are checked per request, not
 * baked into the cached answer.
 */
export function useContentReadCache(maxBytes: number): Plugin<GraphQLContext> {
  // Results are kept as JSON text: one string per entry is what the size estimate measures, and the
  // garbage collector never walks it, where a cached object graph of every result would make each
  // major collection slower as the cache fills. A hit pays one JSON.parse.
  const cache = new ReadCache<{ json: string }>(maxBytes, (r) => 2 * r.json.length);
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as GraphQLContext & { params?: { query?: string } };
      const query = context.params?.query;
      if (!query || !cacheableOperation(args.schema, getOperationAST(args.document, args.operationName) ?? undefined)) return;
      const ctx = await context.auth().catch(() => undefined);
      if (!ctx || ctx.actor.kind !== 'token' || !holds(ctx.actor.abilities, 'read')) return;
      const key = cache.keyFor(ctx, 'graphql', args.operationName ?? '', JSON.stringify(args.variableValues ?? {}), query);
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
