import { getOperationAST, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { holds } from '../auth/abilities.ts';
import { ReadCache, type CacheScope } from '../edge/read-cache.ts';
import type { GraphQLContext } from './builder.ts';
import { asksForDraft, graphqlEtag } from './http-caching.ts';
import { cacheableOperation } from './content-read.ts';

/** A cached GraphQL answer: the JSON text as Yoga sends it, and its ETag when a GET may be tagged (no draft asked for). */
export interface CachedGraphqlAnswer {
  json: string;
  etag?: string;
}

/** The request parameters an answer is keyed by, exactly as the client sent them (GraphQL over HTTP). */
export interface GraphqlParams {
  query: string;
  operationName?: string | null;
  variables?: unknown;
}

/**
 * The GraphQL read cache of one server: answers by key, and the documents behind persisted-query
 * hashes seen with their text, so the fast path (src/graphql/cached-answers.ts) can key a hash-only
 * request without asking the APQ store (a Redis round trip).
 */
export interface GraphqlReadCache {
  answers: ReadCache<CachedGraphqlAnswer>;
  documents: LRUCache<string, string>;
}

export function createGraphqlReadCache(maxBytes: number): GraphqlReadCache {
  // Results are kept as JSON text: one string per entry is what the size estimate measures, and the
  // garbage collector never walks it, where a cached object graph of every result would make each
  // major collection slower as the cache fills.
  return {
    answers: new ReadCache<CachedGraphqlAnswer>(maxBytes, (r) => 2 * r.json.length + (r.etag?.length ?? 0)),
    documents: new LRUCache<string, string>({ max: 2_000, maxSize: 16 * 1_048_576, sizeCalculation: (q, k) => q.length + k.length }),
  };
}

/**
 * The key of an answer: the project's scope (generation, schema revision, settings) and the raw
 * request parameters. Raw, not coerced, variables: the fast path has to build the same key before
 * anything is parsed; two spellings of the same values only cost two entries.
 */
export function graphqlKeyFor(cache: GraphqlReadCache, ctx: CacheScope, params: GraphqlParams): string | null {
  return cache.answers.keyFor(ctx, 'graphql', params.operationName ?? '', JSON.stringify(params.variables ?? {}), params.query);
}

const persistedHashOf = (extensions: unknown): string | undefined => {
  const hash = (extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery?.sha256Hash;
  return typeof hash === 'string' ? hash : undefined;
};

/**
 * Yoga plugin: results of content-read queries by (project, content generation, schema revision,
 * query text, variables, operation name). A hit skips execution entirely; a result with errors (or
 * extensions, which Yoga would rewrite on the way out) is never stored. The token must still hold
 * `read` for a hit: abilities are checked per request, not baked into the cached answer.
 */
export function useContentReadCache(cache: GraphqlReadCache): Plugin<GraphQLContext> {
  const { answers, documents } = cache;
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as GraphQLContext & { params?: { query?: string; operationName?: string | null; variables?: unknown; extensions?: unknown } };
      const params = context.params;
      const query = params?.query;
      if (!params || !query || !cacheableOperation(args.schema, getOperationAST(args.document, args.operationName) ?? undefined)) return;
      const ctx = await context.auth().catch(() => undefined);
      if (!ctx || ctx.actor.kind !== 'token' || !holds(ctx.actor.abilities, 'read')) return;
      const key = graphqlKeyFor(cache, ctx, { query, operationName: params.operationName, variables: params.variables });
      if (!key) return;
      const hit = answers.get(key) ?? (await answers.waitFor(key));
      if (hit) {
        setResultAndStopExecution(JSON.parse(hit.json) as ExecutionResult);
        return;
      }
      const done = answers.begin(key);
      // By here the APQ plugin has checked the hash against the text (or loaded the text by its hash).
      const hash = persistedHashOf(params.extensions);
      return {
        onExecuteDone({ result }) {
          if (Symbol.asyncIterator in result || result.errors?.length || result.extensions) return done?.(undefined);
          const json = JSON.stringify(result);
          if (hash) documents.set(hash, query);
          done?.({ json, etag: asksForDraft(args.document, args.variableValues as Record<string, unknown>) ? undefined : graphqlEtag(json) });
        },
      };
    },
  };
}
