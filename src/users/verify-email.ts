import { validationFailed } from '../errors.ts';
import { emitAuthEvent } from '../events/outbox.ts';
import type { EndUserCtx } from './context.ts';
import { confirmBody, normalizeEmail, resendBody } from './inputs.ts';
import { parseBody } from '../errors.ts';
import { sha256 } from './secrets.ts';
import { serializeUser, type UserView } from './serialize.ts';
import { deliverVerification, issueVerification } from './verification.ts';

const RESENT = 'If the address belongs to an account that still needs verification, a verification email has been sent.';

/**
 * POST /api/auth/verify-email/resend `{ email }`. The answer is the same whether or not the address
 * exists or is already verified (no account discovery); only outside production without a mailer
 * does it carry the new token.
 */
export async function resendVerification(ctx: EndUserCtx, body: unknown): Promise<{ message: string; verification_token?: string }> {
  const input = parseBody(resendBody, body);
  const emailKey = normalizeEmail(input.email);
  await ctx.limiter.draw('verify', { address: ctx.ip, account: emailKey });
  const user = await ctx.db.projectUser.findUnique({ where: { projectId_emailNormalized: { projectId: ctx.project.id, emailNormalized: emailKey } } });
  if (!user || user.emailVerifiedAt || user.disabledAt) return { message: RESENT };
  const issued = await ctx.db.$transaction((tx) => issueVerification(tx, ctx, user));
  return { message: RESENT, ...(await deliverVerification(ctx, user, issued)) };
}

/**
 * POST /api/auth/verify-email/confirm `{ token }`: marks the address verified and uses the token up.
 * Emits `auth.email_verification.verified` (once: a second confirm of a verified address is a no-op
 * success without an event).
 */
export async function confirmVerification(ctx: EndUserCtx, body: unknown): Promise<{ message: string; user: UserView }> {
  const input = parseBody(confirmBody, body);
  await ctx.limiter.draw('verify', { address: ctx.ip });
  const invalid = () => validationFailed({ token: ['The verification token is invalid or has expired.'] });
  return ctx.db.$transaction(async (tx) => {
    const now = new Date();
    const found = await tx.emailVerificationToken.findUnique({ where: { tokenHash: sha256(input.token) }, include: { user: true } });
    if (!found || found.user.projectId !== ctx.project.id || found.expiresAt <= now) throw invalid();
    const used = await tx.emailVerificationToken.updateMany({ where: { id: found.id, usedAt: null }, data: { usedAt: now } });
    if (used.count === 0) throw invalid();
    if (found.user.emailVerifiedAt) return { message: 'Email address already verified.', user: serializeUser(found.user) };
    const user = await tx.projectUser.update({ where: { id: found.userId }, data: { emailVerifiedAt: now } });
    await emitAuthEvent(tx, ctx, 'auth.email_verification.verified', { user: serializeUser(user) });
    return { message: 'Email address verified.', user: serializeUser(user) };
  });
}
