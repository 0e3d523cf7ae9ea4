import type { ProjectUser, UserApiKey, UserSession } from '../db/generated/prisma/client.ts';
import { unauthenticated } from '../errors.ts';
import type { EndUserCtx } from './context.ts';
import { verifyAccessToken } from './jwt.ts';
import { usersRuntime } from './runtime.ts';
import { API_KEY_PREFIX, sha256 } from './secrets.ts';

export type CurrentUser =
  | { user: ProjectUser; session: UserSession; apiKey: null }
  | { user: ProjectUser; session: null; apiKey: UserApiKey };

const parseBearer = (header: string | undefined): string | undefined => (header ? /^Bearer\s+(\S+)$/i.exec(header.trim())?.[1] : undefined);

export const bearerOf = parseBearer;

/** Why an end-user request is unauthenticated, each saying what to do (the old message first). */
const ENDUSER_MESSAGES = {
  missing: 'Unauthenticated. Send `Authorization: Bearer <access token>` (the access_token of POST /api/auth/login); the header is missing or not in that form.',
  access: 'Unauthenticated. The access token is invalid or expired: get a new one with POST /api/auth/refresh, or sign in again.',
  session: 'Unauthenticated. The session of this access token has ended (signed out, revoked or expired): sign in again.',
  apiKey: 'Unauthenticated. The API key is unknown, revoked or expired, or its user is disabled.',
} as const;

/**
 * The end user behind the request's bearer: an access token whose session is live, or (where the
 * route allows it) a `uak_` API key that is neither revoked nor expired. Either way the user must
 * belong to this project and not be disabled: disabling a user or ending a session takes effect
 * on the next request, whatever the access token's own expiry says. Every signed-in route passes
 * here, so each request draws a point from the address's `user` budget before any key is looked up.
 */
export async function requireUser(ctx: EndUserCtx, opts: { allowApiKey?: boolean } = {}): Promise<CurrentUser> {
  await ctx.limiter.draw('user', { address: ctx.ip });
  const bearer = ctx.bearer;
  if (!bearer) throw unauthenticated(ENDUSER_MESSAGES.missing);
  if (bearer.startsWith(API_KEY_PREFIX)) {
    if (!opts.allowApiKey) throw unauthenticated('This route needs an access token, not an API key.');
    const key = await ctx.db.userApiKey.findUnique({ where: { keyHash: sha256(bearer) }, include: { user: true } });
    const now = new Date();
    if (!key || key.revokedAt || (key.expiresAt && key.expiresAt <= now) || key.user.projectId !== ctx.project.id || key.user.disabledAt) throw unauthenticated(ENDUSER_MESSAGES.apiKey);
    await ctx.db.userApiKey.update({ where: { id: key.id }, data: { lastUsedAt: now } });
    const { user, ...apiKey } = key;
    return { user, session: null, apiKey: { ...apiKey, lastUsedAt: now } };
  }
  const claims = await verifyAccessToken(usersRuntime(ctx.services).keys, bearer, ctx.project.uuid);
  if (!claims) throw unauthenticated(ENDUSER_MESSAGES.access);
  const session = await ctx.db.userSession.findUnique({ where: { uuid: claims.sessionUuid }, include: { user: true } });
  if (!session || session.revokedAt || session.expiresAt <= new Date()) throw unauthenticated(ENDUSER_MESSAGES.session);
  const { user, ...rest } = session;
  if (user.uuid !== claims.userUuid || user.projectId !== ctx.project.id || user.disabledAt) throw unauthenticated(ENDUSER_MESSAGES.session);
  return { user, session: rest, apiKey: null };
}

/** Session-management routes (logout, password, API keys) need a signed-in session, not a key. */
export async function requireSession(ctx: EndUserCtx): Promise<{ user: ProjectUser; session: UserSession }> {
  const current = await requireUser(ctx);
  if (!current.session) throw unauthenticated();
  return { user: current.user, session: current.session };
}
