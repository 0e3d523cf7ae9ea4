import { holds, type Ability } from '../../abilities.ts';
import type { Ctx } from '../../context.ts';
import type { AppError } from '../../errors.ts';
import { authenticateFromCache } from '../../auth/authenticate.ts';
import { requestInputError, type RequestParts } from '../input-guard.ts';
import { operationError } from '../errors.ts';
import type { EdgeServices } from '../services.ts';
import type { RateBucket, RateState } from '../rate-limit.ts';
import type { ReadCache } from '../read-cache/store.ts';
import type { KnownRestReads } from '../read-cache/known-rest-reads.ts';
import { createGraphqlReadCache, type GraphqlReadCache } from '../read-cache/graphql-answers.ts';
import { admit, afterWrite, rateKeyOf, readAfterOf, type RequestCredentials, type WriteOutcome } from './stages.ts';
export { mutationOutcome } from './stages.ts';
import type { ReadRouting } from '../../context.ts';

export type { RequestCredentials, WriteOutcome };
/**
 * Stage 7 as a function, for the surfaces' error shapers (src/http/error-handler.ts,
 * src/graphql/plugins/result/mask-error.ts), which run outside any one request's adapter.
 */
export const classify = operationError;

/** Whether an error is stage 2 refusing the credentials (400/401), which the address budget has paid for. */
export { isAuthError as isCredentialRefusal } from '../../auth/authenticate.ts';

/**
 * The request pipeline, assembled once per server (src/http/server.ts builds it and hands the same
 * object to both surfaces). It knows neither Fastify nor Yoga: each surface has one adapter that turns
 * its request into `RequestCredentials` and calls these stages, in this order:
 *
 *   1. guard      the parsed request values (NUL, lone surrogates, nesting): 4xx before anything runs;
 *   2. admit      credentials (project header, bearer token); refused credentials pay from the
 *                 client address's budget, whichever surface they came by;
 *   3. budget     one point of the token's budget (a costly operation draws more: `drawBudget`,
 *                 ./stages.ts);
 *   4. read cache published REST reads and content-read GraphQL answers, keyed by the generations
 *                 step 2 read (src/edge/read-cache/);
 *   5. operation  the surface's own: a route handler, or Yoga's parse, validate, execute;
 *   6. afterWrite read-your-writes on this replica (a write that answered an error skips it);
 *   7. classify   one error mapping, which each surface only shapes.
 *
 * The early lanes (src/http/cached-reads.ts before Fastify, src/graphql/server/cached-answers.ts
 * before Yoga) are a fast lane through the same stages, not another assembly: stage 2 from the same
 * authentication (`fast.admit` from this replica's memory, or the request's own `admit` promise),
 * stage 3 from a lease already held (`fast.budget`), stage 4 from the same caches under the same
 * keys. Whatever the fast lane cannot settle from memory it hands to the full path, which meets it
 * at the same stage, so nothing is charged twice.
 */
export interface Pipeline {
  readonly services: EdgeServices;
  /** 1. The refusal of a request whose parsed values no operation could take, or null. */
  guard(parts: RequestParts): AppError | null;
  /**
   * 2 and 3, once per request: `request` is the surface's request object, so every stage that asks
   * (GraphQL's gate, the schema choice, a resolver, the early lane) shares one promise and one charge.
   */
  admit(request: object, creds: RequestCredentials, bucket?: RateBucket): Promise<Ctx>;
  /**
   * Marks `request` as one that writes nothing (REST GET, a GraphQL query): its read-only operations
   * may read a database replica (`readSource`, src/context.ts). Unmarked requests read the primary,
   * so a write's own read-back never meets a replica behind it.
   */
  readOnly(request: object): void;
  /** 4. The caches, absent when READ_CACHE_MB=0. */
  readCache: {
    rest?: ReadCache;
    knownRest?: KnownRestReads;
    graphql?: GraphqlReadCache;
  };
  /**
   * 6. After a write: the caller's next read on this replica sees it; with database replicas, the
   * `Read-After` value its answer carries so that it does on every replica (./stages.ts). Nothing
   * for a `failed` write, whose answer is an error.
   */
  afterWrite(ctx: Pick<Ctx, 'project'>, outcome: WriteOutcome): Promise<string | undefined>;
  /** 7. What an operation threw, as a classified AppError; null for an unexpected failure (masked, logged). */
  classify(err: unknown): AppError | null;
  /** The early lanes' stages 2-3, from memory only; null and undefined hand the request to the full path. */
  fast: {
    /** A token's context from the authentication cache, when it holds `ability`. */
    admit(creds: RequestCredentials, ability: Ability): Ctx | null;
    /** One point from a lease this replica holds, when taking it needs neither Redis nor a refusal. */
    budget(ctx: Ctx): RateState | undefined;
  };
}

/** The one assembly of the request pipeline for a server. */
export function createPipeline(services: EdgeServices): Pipeline {
  const admitted = new WeakMap<object, Promise<Ctx>>();
  // One routing per request, shared by its context and whichever adapter stage marks it read-only.
  const routings = new WeakMap<object, ReadRouting>();
  const routingOf = (request: object): ReadRouting => {
    let routing = routings.get(request);
    if (!routing) routings.set(request, (routing = { replica: false }));
    return routing;
  };
  return {
    services,
    guard: requestInputError,
    admit(request, creds, bucket = 'default') {
      let pending = admitted.get(request);
      if (!pending) {
        pending = admit(services, creds, bucket);
        if (services.replicas) {
          pending = pending.then((ctx) => {
            const routing = routingOf(request);
            routing.after = ctx.reads?.after;
            ctx.reads = routing;
            return ctx;
          });
        }
        admitted.set(request, pending);
      }
      return pending;
    },
    readOnly(request) {
      if (services.replicas) routingOf(request).replica = true;
    },
    readCache: {
      rest: services.readCache,
      knownRest: services.knownRestReads,
      graphql: services.graphqlReadCache ? createGraphqlReadCache(services.graphqlReadCache) : undefined,
    },
    afterWrite: (ctx, outcome) => afterWrite(services, ctx, outcome),
    classify: operationError,
    fast: {
      admit(creds, ability) {
        const ctx = authenticateFromCache(services, { projectId: creds.projectId, authorization: creds.authorization, readAfter: readAfterOf(services, creds) }, creds.requestId);
        return ctx && ctx.actor.kind === 'token' && holds(ctx.actor.abilities, ability) ? ctx : null;
      },
      budget: (ctx) => services.rateLimiter.tryConsume(rateKeyOf(ctx), 'default'),
    },
  };
}
