import { Prisma } from '../db/client.ts';
import type { ProjectUser } from '../db/generated/prisma/client.ts';
import { validationFailed } from '../errors.ts';
import { emitAuthEvent } from '../events/outbox.ts';
import type { EndUserCtx } from './context.ts';
import { normalizeEmail, signupBody } from './inputs.ts';
import { parseBody } from '../errors.ts';
import { hashNewPassword } from './credentials.ts';
import { serializeUser, type UserView } from './serialize.ts';
import { startSession, type TokenPayload } from './sessions.ts';
import { deliverVerification, issueVerification, needsVerification, type IssuedVerification } from './verification.ts';

export type SignupResult =
  | { status: 201; body: TokenPayload }
  | { status: 202; body: { message: string; code: 'email_verification_required'; verification_required: true; user: UserView; verification_token?: string } };

const taken = () => validationFailed({ email: ['The email has already been taken.'] });

/**
 * POST /api/auth/signup. 201 with a session, or 202 without one while the project requires a
 * verified address (the verification token goes to the mailer). Emits `auth.signup.success`.
 */
export async function signup(ctx: EndUserCtx, body: unknown): Promise<SignupResult> {
  const input = parseBody(signupBody, body);
  const emailKey = normalizeEmail(input.email);
  await ctx.limiter.draw('signup', { address: ctx.ip, account: emailKey });
  // Hashed before looking the address up: a taken address answers no faster than a free one.
  const passwordHash = await hashNewPassword(ctx, input.password);
  try {
    type Done = { user: ProjectUser; tokens: TokenPayload } | { user: ProjectUser; issued: IssuedVerification };
    const done = await ctx.db.$transaction(async (tx): Promise<Done> => {
      if (await tx.projectUser.findUnique({ where: { projectId_emailNormalized: { projectId: ctx.project.id, emailNormalized: emailKey } }, select: { id: true } })) throw taken();
      const user = await tx.projectUser.create({
        data: { projectId: ctx.project.id, email: input.email, emailNormalized: emailKey, passwordHash, displayName: input.display_name ?? null },
      });
      await emitAuthEvent(tx, ctx, 'auth.signup.success', { user: serializeUser(user) });
      if (needsVerification(ctx, user)) return { user, issued: await issueVerification(tx, ctx, user) };
      return { user, tokens: await startSession(tx, ctx, user, 'password') };
    });
    if ('tokens' in done) return { status: 201, body: done.tokens };
    const exposed = await deliverVerification(ctx, done.user, done.issued);
    return {
      status: 202,
      body: {
        message: 'Account created. Confirm your email address to sign in.',
        code: 'email_verification_required',
        verification_required: true,
        user: serializeUser(done.user),
        ...exposed,
      },
    };
  } catch (err) {
    // Two sign-ups for one address at once: the unique index decides, the loser gets the same 422.
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') throw taken();
    throw err;
  }
}
