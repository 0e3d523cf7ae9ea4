import type { ProjectUser } from '../db/generated/prisma/client.ts';
import type { Tx } from '../db/client.ts';
import { AppError } from '../errors.ts';
import type { EndUserCtx } from './context.ts';
import { exposeVerificationToken, mailerOf } from './runtime.ts';
import { VERIFICATION_PREFIX, newSecret, sha256 } from './secrets.ts';

export interface IssuedVerification {
  token: string;
  expiresAt: Date;
}

/** A one-time verification token for the user, stored as sha256. Older unused ones stay valid until they expire. */
export async function issueVerification(tx: Tx, ctx: EndUserCtx, user: ProjectUser): Promise<IssuedVerification> {
  const token = newSecret(VERIFICATION_PREFIX);
  const expiresAt = new Date(Date.now() + ctx.services.config.AUTH_EMAIL_VERIFICATION_TTL_SECONDS * 1000);
  await tx.emailVerificationToken.create({ data: { userId: user.id, tokenHash: sha256(token), expiresAt } });
  return { token, expiresAt };
}

/**
 * Hands the token to the mailer (after the transaction committed, so no mail names a token that does
 * not exist) and says what the response may carry: the token itself only when nothing delivers
 * mail outside production (src/users/runtime.ts).
 */
export async function deliverVerification(ctx: EndUserCtx, user: ProjectUser, issued: IssuedVerification): Promise<{ verification_token?: string }> {
  const mailer = mailerOf(ctx.services);
  if (mailer.delivers) {
    await mailer.sendVerification({
      projectUuid: ctx.project.uuid,
      projectName: ctx.project.name,
      email: user.email,
      displayName: user.displayName,
      token: issued.token,
      expiresAt: issued.expiresAt,
    });
  }
  return exposeVerificationToken(ctx.services) ? { verification_token: issued.token } : {};
}

/** 403 of login, social login and refresh while the project requires a verified address and this one is not. */
export function verificationRequired(extra: { verification_token?: string } = {}): AppError {
  return new AppError('FORBIDDEN', 'Your email address is not verified.', {
    extra: { code: 'email_verification_required', verification_required: true, ...extra },
  });
}

export const needsVerification = (ctx: EndUserCtx, user: ProjectUser): boolean => ctx.project.requireEmailVerification && !user.emailVerifiedAt;
