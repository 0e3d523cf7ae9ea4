import type { ProjectUser } from '../db/generated/prisma/client.ts';
import type { Tx } from '../db/client.ts';
import type { EndUserCtx } from './context.ts';
import { signAccessToken } from './jwt.ts';
import { usersRuntime } from './runtime.ts';
import { REFRESH_PREFIX, newSecret, sha256 } from './secrets.ts';
import { serializeUser, type UserView } from './serialize.ts';

/** The token payload of signup, login and refresh (docs/auth.md). */
export interface TokenPayload {
  access_token: string;
  token_type: 'Bearer';
  expires_at: string;
  refresh_token: string;
  refresh_token_expires_at: string;
  user: UserView;
}

const seconds = (n: number) => new Date(Date.now() + n * 1000);

/** Adds a refresh token to a session (a new family's first, or a rotation's successor). */
async function issueRefreshToken(tx: Tx, sessionId: number, expiresAt: Date): Promise<string> {
  const token = newSecret(REFRESH_PREFIX);
  await tx.userRefreshToken.create({ data: { sessionId, tokenHash: sha256(token), expiresAt } });
  return token;
}

async function payload(ctx: EndUserCtx, user: ProjectUser, sessionUuid: string, refreshToken: string, refreshExpiresAt: Date): Promise<TokenPayload> {
  const { keys } = usersRuntime(ctx.services);
  const access = await signAccessToken(keys, ctx.project.uuid, { userUuid: user.uuid, sessionUuid }, ctx.services.config.AUTH_ACCESS_TTL_SECONDS);
  return {
    access_token: access.token,
    token_type: 'Bearer',
    expires_at: access.expiresAt.toISOString(),
    refresh_token: refreshToken,
    refresh_token_expires_at: refreshExpiresAt.toISOString(),
    user: serializeUser(user),
  };
}

/**
 * A sign-in: a new session (refresh-token family) whose lifetime is fixed now. Rotation never
 * extends it, so a stolen family dies on schedule even if the thief keeps refreshing.
 */
export async function startSession(tx: Tx, ctx: EndUserCtx, user: ProjectUser, method: string): Promise<TokenPayload> {
  const expiresAt = seconds(ctx.services.config.AUTH_REFRESH_TTL_SECONDS);
  const session = await tx.userSession.create({
    data: { userId: user.id, method, ip: ctx.ip.slice(0, 64), userAgent: ctx.userAgent?.slice(0, 512) ?? null, expiresAt },
  });
  const refresh = await issueRefreshToken(tx, session.id, expiresAt);
  const signedIn = await tx.projectUser.update({ where: { id: user.id }, data: { lastLoginAt: new Date() } });
  return payload(ctx, signedIn, session.uuid, refresh, expiresAt);
}

/** The next token of a family (the caller has already marked the presented one rotated). */
export async function continueSession(tx: Tx, ctx: EndUserCtx, user: ProjectUser, session: { id: number; uuid: string; expiresAt: Date }): Promise<TokenPayload> {
  const refresh = await issueRefreshToken(tx, session.id, session.expiresAt);
  await tx.userSession.update({ where: { id: session.id }, data: { lastUsedAt: new Date() } });
  return payload(ctx, user, session.uuid, refresh, session.expiresAt);
}

/** Revokes sessions (all of a user's, or one) that are still live. */
export async function revokeSessions(tx: Tx, where: { userId: number; sessionId?: number }, reason: string): Promise<number> {
  const res = await tx.userSession.updateMany({
    where: { userId: where.userId, ...(where.sessionId !== undefined ? { id: where.sessionId } : {}), revokedAt: null },
    data: { revokedAt: new Date(), revokedReason: reason },
  });
  return res.count;
}
