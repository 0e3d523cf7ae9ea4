import { unauthenticated } from '../errors.ts';
import type { EndUserCtx } from './context.ts';
import { parseBody, refreshBody } from './inputs.ts';
import { sha256 } from './secrets.ts';
import { continueSession, revokeSessions, type TokenPayload } from './sessions.ts';
import { verificationRequired, needsVerification } from './verification.ts';

const invalid = () => unauthenticated('Invalid refresh token.');

/**
 * POST /api/auth/refresh: trades a refresh token for a new access token and the family's next refresh
 * token. Each refresh token works once: presenting one that was already rotated means two parties
 * hold the family (a thief or a replay), so the whole session is revoked and both must sign in again.
 */
export async function refresh(ctx: EndUserCtx, body: unknown): Promise<TokenPayload> {
  const input = parseBody(refreshBody, body);
  const tokenHash = sha256(input.refresh_token);
  await ctx.limiter.draw('refresh', { address: ctx.ip, account: tokenHash });
  const found = await ctx.db.userRefreshToken.findUnique({ where: { tokenHash }, include: { session: { include: { user: true } } } });
  if (!found || found.session.user.projectId !== ctx.project.id) throw invalid();
  const { session } = found;
  const { user } = session;
  const now = new Date();
  if (session.revokedAt || session.expiresAt <= now || found.expiresAt <= now || user.disabledAt) throw invalid();
  if (needsVerification(ctx, user)) throw verificationRequired();

  const rotated = await ctx.db.$transaction(async (tx) => {
    // The conditional update is the lock: of two refreshes with one token, exactly one rotates it.
    const claimed = await tx.userRefreshToken.updateMany({ where: { id: found.id, rotatedAt: null }, data: { rotatedAt: now } });
    if (claimed.count === 0) return null;
    return continueSession(tx, ctx, user, session);
  });
  if (rotated) return rotated;
  // Reuse: revoked in its own transaction, which must commit although the answer is an error.
  await ctx.db.$transaction((tx) => revokeSessions(tx, { userId: user.id, sessionId: session.id }, 'reuse'));
  ctx.log.warn({ user: user.uuid, session: session.uuid }, 'refresh token reused: session family revoked');
  throw invalid();
}
