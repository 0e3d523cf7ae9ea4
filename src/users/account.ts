import { unauthenticated, validationFailed } from '../errors.ts';
import { emitAuthEvent } from '../events/outbox.ts';
import type { EndUserCtx } from './context.ts';
import { requireSession, requireUser } from './current-user.ts';
import { checkPassword, hashNewPassword } from './credentials.ts';
import { changePasswordBody } from './inputs.ts';
import { parseBody } from '../errors.ts';
import { serializeUser, type UserView } from './serialize.ts';
import { revokeSessions } from './sessions.ts';

/** GET /api/auth/me: the signed-in user (an access token or one of the user's `uak_` keys). */
export async function me(ctx: EndUserCtx): Promise<{ user: UserView }> {
  const { user } = await requireUser(ctx, { allowApiKey: true });
  return { user: serializeUser(user) };
}

/**
 * POST /api/auth/change-password. The current password goes through the same check as a login
 * (budgets, lockout; src/users/credentials.ts): a stolen access token cannot guess its way to a
 * password the thief then owns. Every other session of the user is revoked: whoever else held the
 * old password (or a token minted with it) is signed out; the caller's session stays.
 */
export async function changePassword(ctx: EndUserCtx, body: unknown): Promise<{ message: string }> {
  const { user, session } = await requireSession(ctx);
  const input = parseBody(changePasswordBody, body);
  if (!(await checkPassword(ctx, user.emailNormalized, input.current_password, async () => user))) {
    throw validationFailed({ current_password: ['The current password is incorrect.'] });
  }
  const passwordHash = await hashNewPassword(ctx, input.new_password);
  await ctx.db.$transaction(async (tx) => {
    await tx.projectUser.update({ where: { id: user.id }, data: { passwordHash } });
    await tx.userSession.updateMany({ where: { userId: user.id, id: { not: session.id }, revokedAt: null }, data: { revokedAt: new Date(), revokedReason: 'password_changed' } });
  });
  return { message: 'Password changed.' };
}

/** POST /api/auth/logout: ends the caller's session (its refresh tokens and access tokens stop working). Emits `auth.logout.success`. */
export async function logout(ctx: EndUserCtx): Promise<{ message: string }> {
  const { user, session } = await requireSession(ctx);
  await ctx.db.$transaction(async (tx) => {
    // A concurrent logout (or logout-all) that ended the session first: this token is already dead,
    // as it would be a moment later (401), and the event is written once.
    if ((await revokeSessions(tx, { userId: user.id, sessionId: session.id }, 'logout')) === 0) throw unauthenticated();
    await emitAuthEvent(tx, ctx, 'auth.logout.success', { user: serializeUser(user), session: { uuid: session.uuid } });
  });
  return { message: 'Logged out.' };
}

/** POST /api/auth/logout-all: ends every session of the user. Emits `auth.logout_all.success`. */
export async function logoutAll(ctx: EndUserCtx): Promise<{ message: string; revoked_sessions: number }> {
  const { user } = await requireSession(ctx);
  const revoked = await ctx.db.$transaction(async (tx) => {
    const n = await revokeSessions(tx, { userId: user.id }, 'logout_all');
    // Nothing left to end, the caller's own session included: a concurrent logout got there first.
    if (n === 0) throw unauthenticated();
    await emitAuthEvent(tx, ctx, 'auth.logout_all.success', { user: serializeUser(user), revoked_sessions: n });
    return n;
  });
  return { message: 'Logged out of all sessions.', revoked_sessions: revoked };
}
