import type { Ctx } from '../../context.ts';
import { authenticate, isAuthError } from '../../auth/authenticate.ts';
import { clientKey } from '../client-key.ts';
import type { EdgeServices } from '../services.ts';
import type { RateBucket } from '../rate-limit.ts';
import { formatLsn, parseLsn, type Lsn } from '../../db/lsn.ts';

/**
 * The budget and credential stages of the request pipeline, as functions: src/edge/pipeline/index.ts
 * puts them in order once, and the surfaces reach them through that assembly. A resolver or route
 * that costs more than one point draws another with `drawBudget`.
 */

export interface RequestCredentials {
  projectId?: string | string[];
  authorization?: string | string[];
  /** The client's address: the budget of requests that carry no token. */
  ip?: string;
  requestId?: string;
  /** The `Read-After` header: the WAL position of the client's last write, as a write's answer gave it. */
  readAfter?: string | string[];
}

/**
 * The position a request's `Read-After` names; a malformed one is ignored (it can only ask to wait).
 * Without replicas every read is the primary's and already sees every commit, so the header is
 * ignored too: it would only make the authentication skip its cache.
 */
export const readAfterOf = (services: Pick<EdgeServices, 'replicas'>, creds: Pick<RequestCredentials, 'readAfter'>): Lsn | undefined =>
  services.replicas ? parseLsn(Array.isArray(creds.readAfter) ? creds.readAfter[0] : creds.readAfter) : undefined;

/**
 * Whose budget a request draws on. Token ids are only unique within one database, and several
 * deployments (or test runs) may share one Redis: the project's UUID makes the key unique everywhere.
 */
export const rateKeyOf = (ctx: Pick<Ctx, 'actor' | 'project'>, ip = 'unknown'): string =>
  ctx.actor.kind === 'token' ? `t:${ctx.project.uuid}:${ctx.actor.tokenId}` : `ip:${ip}`;

/**
 * Authenticates a request and takes one point from its `bucket`; throws 400/401/429 AppErrors. A
 * request whose credentials are refused (no or unknown project, a missing, wrong, expired or revoked
 * token: 400/401) first pays one point from its address's budget, so a token cannot be guessed at
 * line rate; a spent address budget then answers 429 instead. The token's own budget refusing is not
 * a credential failure and costs the address nothing.
 */
export async function admit(services: EdgeServices, creds: RequestCredentials, bucket: RateBucket = 'default'): Promise<Ctx> {
  let ctx: Ctx;
  try {
    ctx = await authenticate(services, { projectId: creds.projectId, authorization: creds.authorization, readAfter: readAfterOf(services, creds) }, creds.requestId);
  } catch (err) {
    if (isAuthError(err)) await drawAddressBudget(services, creds.ip);
    throw err;
  }
  await drawBudget(services, ctx, bucket, creds.ip, creds.requestId);
  return ctx;
}

/**
 * One more point, from another bucket, for an operation that costs more than the request's default.
 * With `requestId` the budget's state is kept for the response's RateLimit-* headers.
 */
export async function drawBudget(services: EdgeServices, ctx: Ctx, bucket: RateBucket, ip?: string, requestId?: string): Promise<void> {
  if (ctx.actor.kind !== 'token') return;
  await services.rateLimiter.consume(rateKeyOf(ctx, ip), bucket, requestId);
}

/**
 * The budget of a request that carries no valid credentials, keyed by the client (`clientKey`: an
 * IPv4 address, or an IPv6 address's RATE_LIMIT_IPV6_PREFIX prefix). Drawn before any schema work,
 * so unauthenticated traffic (introspection, failed sign-ins) is bounded per client as token traffic
 * is per token.
 */
export async function drawAddressBudget(services: EdgeServices, ip: string | undefined): Promise<void> {
  await services.rateLimiter.consume(`ip:${clientKey(ip, services.config.RATE_LIMIT_IPV6_PREFIX)}`, 'anonymous');
}

/**
 * How a write's operation ended, as its surface saw it: `failed` when it answered an error (a REST
 * route that threw or answered 4xx/5xx; a GraphQL mutation whose every root field failed).
 */
export type WriteOutcome = 'succeeded' | 'failed';

/**
 * A GraphQL mutation's outcome from its execution result: failed when it has no data, or when every
 * root field it asked for failed (an error whose path starts at that field). One field that succeeded
 * beside others that failed may have committed, so the mutation counts as succeeded.
 */
export function mutationOutcome(result: { data?: Record<string, unknown> | null; errors?: ReadonlyArray<{ path?: ReadonlyArray<string | number> }> }): WriteOutcome {
  if (!result.errors?.length) return 'succeeded';
  if (!result.data) return 'failed';
  const failedFields = new Set(result.errors.map((e) => e.path?.[0]));
  return Object.keys(result.data).every((field) => failedFields.has(field)) ? 'failed' : 'succeeded';
}

/**
 * Read-your-writes on this replica, whatever the change feed's timing: forgets the project's
 * cached authentication (and with it the content generations the read caches key by) before the
 * response goes out (src/auth/auth-cache.ts). Then hints every replica to read the change log and
 * the outbox now (src/db/change-hints.ts); the write has committed, and the response does not wait.
 *
 * With read replicas, read-your-writes on every API replica: the answer is the primary's WAL
 * position now (every commit of this write is at or below it), which the response carries as
 * `Read-After`; a client that sends it back has its reads wait for a database replica that replayed
 * it, on whichever API replica it reaches, and this process's own later reads of the project do
 * without the header. Undefined without replicas (nothing to wait for) or when the primary did not
 * answer (the write stands; only the position is missing).
 *
 * A failed write does none of it: its answer is an error, so it promised the client nothing to read
 * back, and it costs no round trip to the primary. Whatever a failed operation did commit reaches
 * this replica's caches through the change feed, as another replica's write does.
 */
export async function afterWrite(services: EdgeServices, ctx: Pick<Ctx, 'project'>, outcome: WriteOutcome): Promise<string | undefined> {
  if (outcome === 'failed') return undefined;
  services.authCache?.forgetProject(ctx.project.id);
  services.changeHints?.send();
  const replicas = services.replicas;
  if (!replicas) return undefined;
  try {
    const lsn = await replicas.primaryPosition();
    replicas.noteWrite(ctx.project.id, lsn);
    return formatLsn(lsn);
  } catch {
    return undefined;
  }
}
