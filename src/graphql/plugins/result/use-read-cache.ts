import { getOperationAST, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { holds } from '../../../abilities.ts';
import { answerKey, shapeKeyOf, type GraphqlReadCache } from '../../../edge/read-cache/graphql-answers.ts';
import type { GraphQLContext } from '../../context.ts';
import { asksForDraft, graphqlEtag } from '../../../edge/read-cache/graphql-etag.ts';
import { cacheableOperation, readDependencies } from '../../schema/common/content-read.ts';
import { tagsOf, watchShown } from '../../../edge/cdn/headers.ts';
import { rememberTags } from './answer-tags.ts';

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
      const request = (context as { req?: object }).req;
      // By here the APQ plugin has checked the hash against the text (or loaded the text by its hash).
      const hash = persistedHashOf(params.extensions);
      const shapeKey = shapeKeyOf(ctx, { query, operationName: params.operationName, variables: params.variables });
      if (hit) {
        // The early lanes learn the shape from a hit too: the answer may have been stored by another
        // server of the process, or the shape dropped from its bounded memory since.
        if (hash) documents.set(hash, query);
        shapes.set(shapeKey, { reads, variables: variablesJson });
        if (hit.tags && request) rememberTags(request, hit.tags);
        setResultAndStopExecution(JSON.parse(hit.json) as ExecutionResult);
        return;
      }
      const done = answers.begin(key);
      const shown = watchShown(ctx);
      return {
        onExecuteDone({ result }) {
          if (Symbol.asyncIterator in result || result.errors?.length || result.extensions) return done?.(undefined);
          const json = JSON.stringify(result);
          if (hash) documents.set(hash, query);
          shapes.set(shapeKey, { reads, variables: variablesJson });
          const etag = asksForDraft(args.document, variables as Record<string, unknown>) ? undefined : graphqlEtag(json);
          // A delivery token's answer keeps its CDN tags: the key names its scope, so only delivery tokens get it.
          done?.({ json, etag, ...(shown && etag ? { tags: tagsOf(ctx.project.uuid, shown) } : {}) });
        },
      };
    },
  };
}
