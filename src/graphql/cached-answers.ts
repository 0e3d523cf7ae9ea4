import type { FastifyReply, FastifyRequest } from 'fastify';
import { holds } from '../auth/abilities.ts';
import type { Ctx } from '../context.ts';
import { matchesIfNoneMatch } from '../edge/etag.ts';
import { trustedDocumentsEnforced } from '../persisted/operations.ts';
import { graphqlKeyFor, type GraphqlParams, type GraphqlReadCache } from './read-cache.ts';

/**
 * The media type Yoga's regular result processor would answer with, or null when it would not be
 * the one answering (event streams, multipart, a charset other than UTF-8, nothing acceptable). The
 * same walk as graphql-yoga's use-result-processor: the last match wins, the header's first entry
 * is tried last, and `*` matches either part.
 */
export function regularMediaType(accept: string | undefined): string | null {
  const asked = (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',');
  const types: string[] = [];
  for (const entry of asked) {
    const [type, ...params] = entry.split(';');
    if (!type) continue;
    const charset = params.find((p) => p.includes('charset=')) ?? 'charset=utf-8';
    if (charset === 'charset=utf-8') types.push(type);
  }
  let chosen: string | null = null;
  for (const type of types.reverse()) {
    const [pre, suf] = type.split('/');
    for (const offered of ['application/graphql-response+json', 'application/json']) {
      const [oPre, oSuf] = offered.split('/');
      if ((pre === '*' || pre === oPre) && (suf === '*' || suf === oSuf)) chosen = offered;
    }
  }
  return chosen;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON query-string parameter, or `undefined` when absent and `null` when it does not parse (Yoga answers those). */
function jsonParam(value: unknown): unknown {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return null;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return null;
  }
}

/** The GraphQL-over-HTTP parameters of a single (unbatched) GET or JSON POST, or null. */
function paramsOf(req: FastifyRequest, cache: GraphqlReadCache): GraphqlParams | null {
  let raw: Record<string, unknown>;
  if (req.method === 'GET') {
    const q = req.query as Record<string, unknown>;
    const variables = jsonParam(q.variables);
    const extensions = jsonParam(q.extensions);
    if (variables === null || extensions === null) return null;
    raw = { query: q.query, operationName: q.operationName, variables, extensions };
  } else if (req.method === 'POST' && isRecord(req.body)) {
    raw = req.body;
  } else {
    return null;
  }
  if (raw.operationName !== undefined && raw.operationName !== null && typeof raw.operationName !== 'string') return null;
  let query = raw.query;
  if (query === undefined) {
    const hash = isRecord(raw.extensions) && isRecord(raw.extensions.persistedQuery) ? raw.extensions.persistedQuery.sha256Hash : undefined;
    query = typeof hash === 'string' ? cache.documents.get(hash) : undefined;
  }
  if (typeof query !== 'string') return null;
  return { query, operationName: raw.operationName as string | null | undefined, variables: raw.variables };
}

export interface CachedAnswerOptions {
  cache: GraphqlReadCache;
  /** The request's authentication and rate budget: the same promise Yoga awaits if the request goes on to it. */
  authFor: (req: FastifyRequest) => Promise<Ctx>;
}

/**
 * Answers a repeated published GraphQL read from the read cache before Yoga sees the request, or
 * returns false and leaves the request to Yoga untouched. A cached read otherwise paid Yoga's whole
 * per-request pipeline (fetch Request, envelop, parse cache, result processor) to send a string it
 * already had; here it costs what a cached REST read costs.
 *
 * As strict as the full path: the request is authenticated and charged by the same promise Yoga
 * would await (so a request handed on is never charged twice); only a token holding `read` is
 * answered, as the plugin that stored the answer requires; a project that enforces trusted documents
 * is left to Yoga; and the key is the one the plugin stores under (src/graphql/read-cache.ts), so
 * an answer is only ever one the full path produced for the same project scope (content generation,
 * schema revision, settings), document, operation name and variables, having passed every document
 * limit. Misses, anonymous requests, batches, other media types and anything unusual fall through,
 * at the cost of a key lookup.
 */
export async function answerFromCache({ cache, authFor }: CachedAnswerOptions, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const { headers } = req;
  if (typeof headers['project-id'] !== 'string' || typeof headers.authorization !== 'string') return false;
  const mediaType = regularMediaType(headers.accept);
  if (!mediaType) return false;
  const params = paramsOf(req, cache);
  if (!params) return false;
  let ctx: Ctx;
  try {
    ctx = await authFor(req);
  } catch {
    return false; // Yoga answers the failure (the same settled promise: no second charge)
  }
  if (ctx.actor.kind !== 'token' || !holds(ctx.actor.abilities, 'read')) return false;
  if (await trustedDocumentsEnforced(ctx)) return false;
  const key = graphqlKeyFor(cache, ctx, params);
  if (!key) return false;
  const answer = cache.answers.hitOnly(key);
  if (!answer) return false;
  // `x-cache: HIT`, as REST's published reads say it: this answer was not computed for this request.
  void reply.status(200).header('x-cache', 'HIT');
  if (req.method === 'GET' && answer.etag) {
    void reply.headers({ etag: answer.etag, 'cache-control': 'no-cache' });
    if (matchesIfNoneMatch(headers['if-none-match'], answer.etag)) {
      void reply.status(304).send();
      return true;
    }
  }
  void reply.type(`${mediaType}; charset=utf-8`).send(answer.json);
  return true;
}
