import { AppError, unauthenticated } from '../errors.ts';
import { emitAuthEvent } from '../webhooks/outbox.ts';
import type { EndUserCtx } from './context.ts';
import { loginBody, normalizeEmail, parseBody } from './inputs.ts';
import { verifyPassword } from './passwords.ts';
import { serializeUser } from './serialize.ts';
import { startSession, type TokenPayload } from './sessions.ts';
import { deliverVerification, issueVerification, needsVerification, verificationRequired } from './verification.ts';

export const INVALID_CREDENTIALS = 'Invalid credentials.';

/** 429 of a locked-out account: the message is the failed login's (facts §8), plus `retry_after`. */
const lockedOut = (seconds: number) => new AppError('RATE_LIMITED', INVALID_CREDENTIALS, { retryAfter: seconds, extra: { retry_after: seconds } });

export const accountDisabled = () => new AppError('FORBIDDEN', 'This account has been disabled.', { extra: { code: 'account_disabled' } });

/**
 * POST /api/auth/login. Unknown address, wrong password and social-only account all answer the same
 * 401 after the same argon2 work. Repeated failures lock the account (429 with `retry_after`);
 * account state (disabled, unverified) is told only to a caller who knew the password.
 * Emits `auth.login.success`.
 */
export async function login(ctx: EndUserCtx, body: unknown): Promise<TokenPayload> {
  const input = parseBody(loginBody, body);
  const emailKey = normalizeEmail(input.email);
  await ctx.limiter.draw('login', { address: ctx.ip, account: emailKey });
  const locked = await ctx.limiter.lockedFor(emailKey);
  if (locked > 0) throw lockedOut(locked);

  const user = await ctx.db.projectUser.findUnique({ where: { projectId_emailNormalized: { projectId: ctx.project.id, emailNormalized: emailKey } } });
  if (!(await verifyPassword(user?.passwordHash, input.password)) || !user) {
    const lockout = await ctx.limiter.recordFailure(emailKey);
    if (lockout > 0) throw lockedOut(lockout);
    throw unauthenticated(INVALID_CREDENTIALS);
  }
  await ctx.limiter.clearFailures(emailKey);
  if (user.disabledAt) throw accountDisabled();
  if (needsVerification(ctx, user)) {
    const issued = await ctx.db.$transaction((tx) => issueVerification(tx, ctx, user));
    throw verificationRequired(await deliverVerification(ctx, user, issued));
  }
  return ctx.db.$transaction(async (tx) => {
    const tokens = await startSession(tx, ctx, user, 'password');
    await emitAuthEvent(tx, ctx, 'auth.login.success', { user: tokens.user, method: 'password' });
    return tokens;
  });
}
