import type { FastifyReply, FastifyRequest } from 'fastify';
import { holds } from '../../abilities.ts';
import type { Ctx } from '../../context.ts';
import { matchesIfNoneMatch } from '../../edge/read-cache/etag.ts';
import { manifestScopeOf } from '../../persisted/operations.ts';
import { knownReadKey, type GraphqlReadCache } from '../plugins/result/use-read-cache.ts';
import { documentOf } from '../plugins/request/use-trusted-documents.ts';

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

interface RawParams {
  query?: unknown;
  operationName?: string | null;
  variables?: unknown;
  extensions?: unknown;
}

/** The GraphQL-over-HTTP parameters of a single (unbatched) GET or JSON POST, as sent, or null. */
function paramsOf(req: FastifyRequest): RawParams | null {
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
  return { query: raw.query, operationName: raw.operationName as string | null | undefined, variables: raw.variables, extensions: raw.extensions };
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
 * As strict as the full path, because it takes the gate's steps in the gate's order
 * (src/graphql/gate.ts): credentials and the token's budget by the same promise Yoga would await (so
 * a request handed on is never charged twice); trusted documents and persisted queries by the same
 * `documentOf` (a project that enforces its manifest is answered only for a manifest document); the
 * document limits, because the key is the one the plugin stores under (src/graphql/read-cache.ts: the
 * generations of the collections the document reads, as the plugin resolved them for this very
 * request shape), so an answer is only ever one the full path produced for the same project scope,
 * document, operation name and variables, having passed every limit; and `read`, as the plugin that
 * stored the answer requires. Misses, anonymous requests, batches, other media types and anything
 * unusual fall through, at the cost of a key lookup.
 */
export async function answerFromCache({ cache, authFor }: CachedAnswerOptions, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const { headers } = req;
  if (typeof headers['project-id'] !== 'string' || typeof headers.authorization !== 'string') return false;
  const mediaType = regularMediaType(headers.accept);
  if (!mediaType) return false;
  const params = paramsOf(req);
  if (!params) return false;
  // The gate's steps (src/graphql/gate.ts), in its order, through the same functions. A refusal is
  // left to Yoga, which meets it at the same step: the same settled promise, so no second charge.
  let ctx: Ctx;
  try {
    ctx = await authFor(req); // credentials and the token's budget
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
    void reply.headers({ etag: answer.etag, 'cache-control': 'no-cache' });
    if (matchesIfNoneMatch(headers['if-none-match'], answer.etag)) {
      void reply.status(304).send();
      return true;
    }
  }
  void reply.type(`${mediaType}; charset=utf-8`).send(answer.json);
  return true;
}
