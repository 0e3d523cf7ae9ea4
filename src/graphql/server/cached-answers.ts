import type { FastifyReply, FastifyRequest } from 'fastify';
import { holds } from '../../abilities.ts';
import type { Ctx } from '../../context.ts';
import { matchesIfNoneMatch } from '../../edge/read-cache/etag.ts';
import { GRAPHQL_VARY, edgeCacheable, edgeHeaders, tagHeader } from '../../edge/cdn/headers.ts';
import { knownReadKey, type GraphqlReadCache } from '../../edge/read-cache/graphql-answers.ts';
import { paramsOf, regularMediaType } from '../../edge/read-cache/graphql-request.ts';
import { manifestScopeOf } from '../../persisted/operations.ts';
import { documentOf } from '../plugins/request/use-trusted-documents.ts';
import type { AuthOf } from './credentials.ts';

export { regularMediaType };

export interface CachedAnswerOptions {
  cache: GraphqlReadCache;
  /** The pipeline's stages 2-3 for the request: the same promise Yoga awaits if the request goes on to it. */
  authOf: AuthOf;
}

/**
 * Answers a repeated published GraphQL read from the read cache before Yoga sees the request, or
 * returns false and leaves the request to Yoga untouched. A cached read otherwise paid Yoga's whole
 * per-request pipeline (fetch Request, envelop, parse cache, result processor) to send a string it
 * already had; here it costs what a cached REST read costs.
 *
 * The pipeline's fast lane for GraphQL (src/edge/pipeline/index.ts), as strict as the full path
 * because it takes the gate's steps in the gate's order (src/graphql/plugins/request/gate.ts):
 * credentials and the token's budget by the same promise Yoga would await (so a request handed on is
 * never charged twice); trusted documents and persisted queries by the same `documentOf` (a project
 * that enforces its manifest is answered only for a manifest document); the document limits, because
 * the key is the one the plugin stores under (src/edge/read-cache/graphql-answers.ts: the generations
 * of the collections the document reads, as the plugin resolved them for this very request shape), so
 * an answer is only ever one the full path produced for the same project scope, document, operation
 * name and variables, having passed every limit; and `read`, as the plugin that stored the answer
 * requires. Misses, anonymous requests, batches, other media types and anything unusual fall
 * through, at the cost of a key lookup.
 */
export async function answerFromCache({ cache, authOf }: CachedAnswerOptions, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const { headers } = req;
  if (typeof headers['project-id'] !== 'string' || typeof headers.authorization !== 'string') return false;
  const mediaType = regularMediaType(headers.accept);
  if (!mediaType) return false;
  const params = paramsOf(req);
  if (!params) return false;
  // The gate's steps, in its order, through the same functions. A refusal is left to Yoga, which
  // meets it at the same step: the same settled promise, so no second charge.
  let ctx: Ctx;
  try {
    ctx = await authOf(req); // credentials and the token's budget
  } catch {
    return false;
  }
  let query: string | undefined;
  try {
    // Trusted documents, then persisted queries: hashes this lane has seen with their text.
    query = await documentOf(manifestScopeOf(ctx), params, { get: (hash) => cache.documents.get(hash) });
  } catch {
    return false;
  }
  if (query === undefined) return false;
  // Document limits: the key below is only ever one the full path stored, for the same project scope
  // and document, after every limit passed. Abilities: `read`, as the plugin that stored it requires.
  if (ctx.actor.kind !== 'token' || !holds(ctx.actor.abilities, 'read')) return false;
  const key = knownReadKey(cache, ctx, { query, operationName: params.operationName, variables: params.variables });
  if (!key) return false;
  const answer = cache.answers.hitOnly(key);
  if (!answer) return false;
  // `x-cache: HIT`, as REST's published reads say it: this answer was not computed for this request.
  void reply.status(200).header('x-cache', 'HIT');
  if (req.method === 'GET' && answer.etag) {
    if (edgeCacheable(ctx) && answer.tags) {
      const config = ctx.services.config;
      void reply.headers({ ...edgeHeaders(config, answer.etag, GRAPHQL_VARY), ...tagHeader(config, answer.tags) });
    } else {
      void reply.headers({ etag: answer.etag, 'cache-control': 'no-cache' });
    }
    if (matchesIfNoneMatch(headers['if-none-match'], answer.etag)) {
      void reply.status(304).send();
      return true;
    }
  }
  void reply.type(`${mediaType}; charset=utf-8`).send(answer.json);
  return true;
}
