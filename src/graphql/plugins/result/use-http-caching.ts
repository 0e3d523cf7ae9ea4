import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { matchesIfNoneMatch } from '../../../edge/read-cache/etag.ts';
import { asksForDraft, graphqlEtag } from '../../../edge/read-cache/graphql-etag.ts';
import { cacheableOperation } from '../../schema/common/content-read.ts';
import { GRAPHQL_VARY, edgeCacheable, edgeHeaders, tagHeader, tagsOf, watchShown, type EdgeConfig } from '../../../edge/cdn/headers.ts';
import type { GraphQLContext } from '../../context.ts';
import { deliveryOf, rememberDelivery, storedTagsOf } from './answer-tags.ts';

/**
 * Conditional GETs for published GraphQL reads, as REST answers them (docs/graphql.md, "HTTP
 * caching"): a GET whose operation selects only content-read fields (CONTENT_READ), asks for no
 * draft (`state: draft`, literal or variable) and answers without errors gets a weak `ETag` digest
 * of its body and `Cache-Control: no-cache` (revalidate every time), and `If-None-Match` naming it
 * answers 304 without a body. POST answers are never tagged: caches do not key on bodies. A delivery
 * token's tagged answer may be kept by a CDN instead (src/edge/cdn/headers.ts): shared-cache lifetime,
 * strong tag, `Vary`, and the purge tags of everything it showed.
 */
export interface ConditionalGets {
  plugin: Plugin;
  /**
   * The status and caching headers of the answer to `req` (the server context Yoga was handed, the
   * same object its operation's context carries), once Yoga's status and body are known; null when
   * the answer is not taggable.
   */
  conditional(req: IncomingRequest, status: number, body: string): { status: number; headers: Record<string, string> } | null;
}

interface IncomingRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
}

export function createConditionalGets(config: EdgeConfig): ConditionalGets {
  const taggable = new WeakSet<IncomingRequest>();
  const plugin: Plugin = {
    async onExecute({ args }) {
      const context = args.contextValue as (Partial<GraphQLContext> & { req?: IncomingRequest }) | undefined;
      const request = context?.req;
      if (!request || request.method !== 'GET') return;
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation || !cacheableOperation(args.schema, operation)) return;
      if (asksForDraft(args.document, args.variableValues as Record<string, unknown> | undefined)) return;
      // A delivery token's read collects what it shows for its CDN tags (authentication is memoised: no second statement).
      const ctx = await context.auth?.().catch(() => undefined);
      if (ctx && edgeCacheable(ctx)) {
        watchShown(ctx);
        rememberDelivery(request, ctx);
      }
      return {
        onExecuteDone({ result }) {
          if (!(Symbol.asyncIterator in result) && !result.errors?.length) taggable.add(request);
        },
      };
    },
  };
  return {
    plugin,
    conditional(req, status, body) {
      if (status !== 200 || !taggable.has(req)) return null;
      const etag = graphqlEtag(body);
      const ctx = deliveryOf(req);
      const headers: Record<string, string> = ctx
        ? { ...edgeHeaders(config, etag, GRAPHQL_VARY), ...tagHeader(config, storedTagsOf(req) ?? tagsOf(ctx.project.uuid, ctx.shown)) }
        : { ETag: etag, 'Cache-Control': 'no-cache' };
      return { status: matchesIfNoneMatch(req.headers['if-none-match'], etag) ? 304 : 200, headers };
    },
  };
}
