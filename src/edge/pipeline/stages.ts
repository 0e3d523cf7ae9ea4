import type { Ctx } from '../../context.ts';
import { authenticate } from '../../auth/authenticate.ts';
import { clientKey } from '../client-key.ts';
import type { EdgeServices } from '../services.ts';
import type { RateBucket } from '../rate-limit.ts';

/**
 * The per-request steps both surfaces share, in order: authenticate (project header, bearer token),
 * draw from the rate budget, and after a write, drop this replica's cached authentication so the
 * caller's next read sees it. REST (src/http/server.ts) and GraphQL (src/graphql/yoga.ts) call these
 * and nothing else of each other's; the read cache and error mapping sit beside them in src/edge/.
 */

export interface RequestCredentials {
  projectId?: string | string[];
  authorization?: string | string[];
  /** The client's address: the budget of requests that carry no token. */
  ip?: string;
  requestId?: string;
}

/**
 * Whose budget a request draws on. Token ids are only unique within one database, and several
 * deployments (or test runs) may share one Redis: the project's UUID makes the key unique everywhere.
 */
export const rateKeyOf = (ctx: Pick<Ctx, 'actor' | 'project'>, ip = 'unknown'): string =>
  ctx.actor.kind === 'token' ? `t:${ctx.project.uuid}:${ctx.actor.tokenId}` : `ip:${ip}`;

/** Authenticates a request and takes one point from its `bucket`; throws 400/401/429 AppErrors. */
export async function admit(services: EdgeServices, creds: RequestCredentials, bucket: RateBucket = 'default'): Promise<Ctx> {
  const ctx = await authenticate(services, { projectId: creds.projectId, authorization: creds.authorization }, creds.requestId);
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
 * Read-your-writes on this replica, whatever the change notification's timing: forgets the project's
 * cached authentication (and with it the content generations the read caches key by) before the
 * response goes out. See src/auth/auth-cache.ts.
 */
export function afterWrite(services: EdgeServices, ctx: Pick<Ctx, 'project'>): void {
  services.authCache?.forgetProject(ctx.project.id);
}
