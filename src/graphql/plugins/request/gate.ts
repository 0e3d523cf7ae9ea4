import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../../context.ts';
import { maskError } from '../result/mask-error.ts';

/**
 * The one gate every GraphQL operation passes, whatever brought it (docs/graphql.md, "One gate for
 * every transport"): POST and GET `/graphql`, both modes of `/graphql/stream`, subscriptions,
 * persisted queries by hash; the early lane (src/graphql/server/cached-answers.ts) takes the same
 * steps through the same functions. In order, one plugin each (src/graphql/server/yoga.ts lists them):
 *  1-2. credentials and budgets: the pipeline's `admit`, once per HTTP request (use-credentials.ts);
 *  3.   trusted documents, then automatic persisted queries: which text runs, and its size
 *       (use-trusted-documents.ts);
 *  then the schema the caller gets (src/graphql/server/schema-choice.ts);
 *  4.   document limits: aliases, directives, introspection in validation, then depth and cost
 *       before execution (../validation/use-document-limits.ts, use-query-limits.ts);
 *  5.   abilities, checked by each resolver on the context step 1 made.
 * Steps 1-3 and the schema choice run in Yoga's `onParams`, which `/graphql` reaches through Yoga's
 * request handling and `/graphql/stream` through `yoga.getResultForParams`
 * (src/graphql/subscriptions/single-connection.ts); steps 4-5 run in the envelop both share.
 */

/** What Fastify hands Yoga with every request (src/graphql/server/mount.ts). */
export interface ServerContext {
  req: FastifyRequest;
  reply: FastifyReply;
}

/**
 * Gate steps 1-2 for one request: the pipeline's `admit`, one promise per HTTP request
 * (src/graphql/server/credentials.ts makes it).
 */
export type AuthOf = (req: FastifyRequest) => Promise<Ctx>;

/** AppErrors mapped here: Yoga would read an AppError's `errors` field as an AggregateError's list. */
export const gateError = (err: unknown) => maskError(err, 'Unexpected error.');
