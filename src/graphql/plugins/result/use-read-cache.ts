import { getOperationAST, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { holds } from '../../../abilities.ts';
import type { CacheScope, CachedAnswer, ReadCache, ReadDependency } from '../../../edge/read-cache/store.ts';
import type { GraphQLContext } from '../../builder.ts';
import { asksForDraft, graphqlEtag } from './use-http-caching.ts';
import { cacheableOperation, readDependencies } from '../../content-read.ts';

/** The request parameters of a GraphQL read, exactly as the client sent them (GraphQL over HTTP). */
export interface GraphqlParams {
  query: string;
  operationName?: string | null;
  variables?: unknown;
}

/** What a stored answer's request resolved to: the collections it reads and its coerced variables. */
interface Shape {
  reads: ReadDependency[] | null;
  variables: string;
}

/**
 * The GraphQL read cache of one server: the process's answers (`services.graphqlReadCache`), and two
 * small memories that let the fast path (src/graphql/cached-answers.ts) build an answer's key without
 * parsing: the documents behind persisted-query hashes seen with their text, and for each request
 * shape an answer was stored for (project, schema revision, document, operation name, variables as
 * sent) what it resolved to.
 */
export interface GraphqlReadCache {
  answers: ReadCache<CachedAnswer>;
  documents: LRUCache<string, string>;
  shapes: LRUCache<string, Shape>;
}

export function createGraphqlReadCache(answers: ReadCache<CachedAnswer>): GraphqlReadCache {
  const bounded = <V extends object | string>(size: (v: V, k: string) => number) => new LRUCache<string, V>({ max: 10_000, maxSize: 16 * 1_048_576, sizeCalculation: (v, k) => Math.max(1, size(v, k)) });
  return {
    answers,
    documents: bounded<string>((q, k) => q.length + k.length),
    shapes: bounded<Shape>((s, k) => s.variables.length + k.length + 64),
  };
}

/** The one key layout of a GraphQL answer, shared by the plugin that stores and the fast path that looks up. */
const answerKey = (cache: GraphqlReadCache, ctx: CacheScope, reads: ReadDependency[] | null, operationName: string | null | undefined, variables: string, query: string): string | null =>
  cache.answers.keyForReads(ctx, reads, 'graphql', operationName ?? '', variables, query);

const shapeKeyOf = (ctx: CacheScope, params: GraphqlParams): string =>
  `${ctx.project.id}|${ctx.project.schemaRevision}|${params.operationName ?? ''}|${JSON.stringify(params.variables ?? {})}|${params.query}`;

/**
 * The key of an answer to a request not yet parsed, when an answer to the same request shape was
 * stored before (the plugin's key for it, with today's generations); null otherwise.
 */
export function knownReadKey(cache: GraphqlReadCache, ctx: CacheScope, params: GraphqlParams): string | null {
  const shape = cache.shapes.get(shapeKeyOf(ctx, params));
  if (!shape) return null;
  return answerKey(cache, ctx, shape.reads, params.operationName, shape.variables, params.query);
}

const persistedHashOf = (extensions: unknown): string | undefined => {
  const hash = (extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery?.sha256Hash;
  return typeof hash === 'string' ? hash : undefined;
};

/**
 * Yoga plugin: results of content-read queries by (project, the generations of what they read,
 * schema revision, query text, variables, operation name). A hit skips execution entirely; a result
 * with errors (or extensions, which Yoga rewrites on the way out) is never stored. The token must
 * still hold `read` for a hit: abilities are checked per request, not baked into the cached answer.
 */
export function useContentReadCache(cache: GraphqlReadCache): Plugin<GraphQLContext> {
  const { answers, documents, shapes } = cache;
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as GraphQLContext & { params?: { query?: string; operationName?: string | null; variables?: unknown; extensions?: unknown } };
      const params = context.params;
      const query = params?.query;
      const operation = getOperationAST(args.document, args.operationName) ?? undefined;
      if (!params || !query || !operation || !cacheableOperation(args.schema, operation)) return;
      const ctx = await context.auth().catch(() => undefined);
      if (!ctx || ctx.actor.kind !== 'token' || !holds(ctx.actor.abilities, 'read')) return;
      const variables = args.variableValues ?? {};
      const reads = readDependencies(args.schema, operation, variables);
      const variablesJson = JSON.stringify(variables);
      const key = answerKey(cache, ctx, reads, args.operationName, variablesJson, query);
      if (!key) return;
      const hit = answers.get(key) ?? (await answers.waitFor(key));
      if (hit) {
        setResultAndStopExecution(JSON.parse(hit.json) as ExecutionResult);
        return;
      }
      const done = answers.begin(key);
      // By here the APQ plugin has checked the hash against the text (or loaded the text by its hash).
      const hash = persistedHashOf(params.extensions);
      const shapeKey = shapeKeyOf(ctx, { query, operationName: params.operationName, variables: params.variables });
      return {
        onExecuteDone({ result }) {
          if (Symbol.asyncIterator in result || result.errors?.length || result.extensions) return done?.(undefined);
          const json = JSON.stringify(result);
          if (hash) documents.set(hash, query);
          shapes.set(shapeKey, { reads, variables: variablesJson });
          done?.({ json, etag: asksForDraft(args.document, variables as Record<string, unknown>) ? undefined : graphqlEtag(json) });
        },
      };
    },
  };
}
