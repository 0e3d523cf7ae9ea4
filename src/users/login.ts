import { AppError, unauthenticated } from '../errors.ts';
import { emitAuthEvent } from '../events/outbox.ts';
import type { EndUserCtx } from './context.ts';
import { checkPassword, INVALID_CREDENTIALS } from './credentials.ts';
import { loginBody, normalizeEmail } from './inputs.ts';
import { parseBody } from '../errors.ts';
import { startSession, type TokenPayload } from './sessions.ts';
import { deliverVerification, issueVerification, needsVerification, verificationRequired } from './verification.ts';

export const accountDisabled = () => new AppError('FORBIDDEN', 'This account has been disabled.', { extra: { code: 'account_disabled' } });

/**
 * POST /api/auth/login. Unknown address, wrong password and social-only account all answer the same
 * 401 after the same argon2 work. Repeated failures lock the account (429 with `retry_after`,
 * src/users/credentials.ts); account state (disabled, unverified) is told only to a caller who knew
 * the password. Emits `auth.login.success`.
 */
export async function login(ctx: EndUserCtx, body: unknown): Promise<TokenPayload> {
  const input = parseBody(loginBody, body);
  const emailKey = normalizeEmail(input.email);
  const user = await checkPassword(ctx, emailKey, input.password, () =>
    ctx.db.projectUser.findUnique({ where: { projectId_emailNormalized: { projectId: ctx.project.id, emailNormalized: emailKey } } }),
  );
  if (!user) throw unauthenticated(INVALID_CREDENTIALS);
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
