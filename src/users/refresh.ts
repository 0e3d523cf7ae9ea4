import { unauthenticated } from '../errors.ts';
import type { EndUserCtx } from './context.ts';
import { refreshBody } from './inputs.ts';
import { parseBody } from '../errors.ts';
import { sha256 } from './secrets.ts';
import { continueSession, revokeSessions, type TokenPayload } from './sessions.ts';
import { verificationRequired, needsVerification } from './verification.ts';

const invalid = () => unauthenticated('Invalid refresh token.');

/**
 * POST /api/auth/refresh: trades a refresh token for a new access token and a next refresh token of
 * the same family (session).
 *
 * The rule: a refresh token rotates once. Presented again within AUTH_REFRESH_REUSE_GRACE_SECONDS of
 * that rotation (parallel refreshes of one client, a retry after an answer lost on the network) it
 * answers again with fresh tokens of the same family; presented again later, two parties hold the
 * family (a thief or a replay), so the whole session is revoked and both must sign in again. A
 * refresh that arrived before the rotation it lost to is always within the grace, however long it
 * waited. Refreshes of one family run one at a time (a row lock on the session), so a 200 always
 * carries tokens of a live session: no revocation can slip in between the check and the answer.
 */
export async function refresh(ctx: EndUserCtx, body: unknown): Promise<TokenPayload> {
  const input = parseBody(refreshBody, body);
  const tokenHash = sha256(input.refresh_token);
  await ctx.limiter.draw('refresh', { address: ctx.ip, account: tokenHash });
  // Taken before any wait, so a refresh that raced the rotation is measured from when it arrived.
  const now = new Date();
  const found = await ctx.db.userRefreshToken.findUnique({ where: { tokenHash }, include: { session: { include: { user: true } } } });
  if (!found || found.session.user.projectId !== ctx.project.id) throw invalid();
  const { session } = found;
  const { user } = session;
  if (session.revokedAt || session.expiresAt <= now || found.expiresAt <= now || user.disabledAt) throw invalid();
  if (needsVerification(ctx, user)) throw verificationRequired();
  const graceMs = ctx.services.config.AUTH_REFRESH_REUSE_GRACE_SECONDS * 1000;

  const outcome = await ctx.db.$transaction(async (tx): Promise<TokenPayload | 'revoked' | 'reused'> => {
    const [live] = await tx.$queryRaw<{ revoked: boolean }[]>`SELECT revoked_at IS NOT NULL AS revoked FROM user_sessions WHERE id = ${session.id} FOR UPDATE`;
    if (!live || live.revoked) return 'revoked';
    const claimed = await tx.userRefreshToken.updateMany({ where: { id: found.id, rotatedAt: null }, data: { rotatedAt: now } });
    if (claimed.count === 1) return continueSession(tx, ctx, user, session);
    const token = await tx.userRefreshToken.findUnique({ where: { id: found.id }, select: { rotatedAt: true } });
    if (token?.rotatedAt && now.getTime() - token.rotatedAt.getTime() <= graceMs) return continueSession(tx, ctx, user, session);
    return 'reused';
  });
  if (outcome === 'revoked') throw invalid();
  if (outcome !== 'reused') return outcome;
  // Reuse: revoked in its own transaction, which must commit although the answer is an error.
  await ctx.db.$transaction((tx) => revokeSessions(tx, { userId: user.id, sessionId: session.id }, 'reuse'));
  ctx.log.warn({ user: user.uuid, session: session.uuid }, 'refresh token reused: session family revoked');
  throw invalid();
}
