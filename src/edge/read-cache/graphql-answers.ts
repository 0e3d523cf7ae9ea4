import { LRUCache } from 'lru-cache';
import type { CacheScope, CachedAnswer, ReadCache, ReadDependency } from './store.ts';

/** The request parameters of a GraphQL read, exactly as the client sent them (GraphQL over HTTP). */
export interface GraphqlParams {
  query: string;
  operationName?: string | null;
  variables?: unknown;
}

/** What a stored answer's request resolved to: the collections it reads and its coerced variables. */
export interface AnswerShape {
  reads: ReadDependency[] | null;
  variables: string;
}

/**
 * The GraphQL read cache of one server: the process's answers (`services.graphqlReadCache`), and two
 * small memories that let the early lane (src/graphql/server/cached-answers.ts) build an answer's key
 * without parsing: the documents behind persisted-query hashes seen with their text, and for each
 * request shape an answer was stored for (project, schema revision, document, operation name,
 * variables as sent) what it resolved to. The Yoga plugin that fills it is
 * src/graphql/plugins/result/use-read-cache.ts.
 */
export interface GraphqlReadCache {
  answers: ReadCache<CachedAnswer>;
  documents: LRUCache<string, string>;
  shapes: LRUCache<string, AnswerShape>;
}

export function createGraphqlReadCache(answers: ReadCache<CachedAnswer>): GraphqlReadCache {
  const bounded = <V extends object | string>(size: (v: V, k: string) => number) => new LRUCache<string, V>({ max: 10_000, maxSize: 16 * 1_048_576, sizeCalculation: (v, k) => Math.max(1, size(v, k)) });
  return {
    answers,
    documents: bounded<string>((q, k) => q.length + k.length),
    shapes: bounded<AnswerShape>((s, k) => s.variables.length + k.length + 64),
  };
}

/** The one key layout of a GraphQL answer, shared by the plugin that stores and the early lane that looks up. */
export const answerKey = (cache: GraphqlReadCache, ctx: CacheScope, reads: ReadDependency[] | null, operationName: string | null | undefined, variables: string, query: string): string | null =>
  cache.answers.keyForReads(ctx, reads, 'graphql', operationName ?? '', variables, query);

export const shapeKeyOf = (ctx: CacheScope, params: GraphqlParams): string =>
  `${ctx.project.id}|${ctx.project.schemaRevision}|${ctx.scope?.digest ?? '-'}|${params.operationName ?? ''}|${JSON.stringify(params.variables ?? {})}|${params.query}`;

/**
 * The key of an answer to a request not yet parsed, when an answer to the same request shape was
 * stored before (the plugin's key for it, with today's generations); null otherwise.
 */
export function knownReadKey(cache: GraphqlReadCache, ctx: CacheScope, params: GraphqlParams): string | null {
  const shape = cache.shapes.get(shapeKeyOf(ctx, params));
  if (!shape) return null;
  return answerKey(cache, ctx, shape.reads, params.operationName, shape.variables, params.query);
}
