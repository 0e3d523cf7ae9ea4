import type { ProjectUser } from '../db/generated/prisma/client.ts';
import { Prisma, type Tx } from '../db/client.ts';
import { unauthenticated, validationFailed } from '../errors.ts';
import { emitAuthEvent } from '../events/outbox.ts';
import type { EndUserCtx } from './context.ts';
import { normalizeEmail, socialLoginBody } from './inputs.ts';
import { parseBody } from '../errors.ts';
import { accountDisabled } from './login.ts';
import { usersRuntime } from './runtime.ts';
import { serializeUser } from './serialize.ts';
import { startSession, type TokenPayload } from './sessions.ts';
import type { SocialIdentity } from './social.ts';
import { deliverVerification, issueVerification, needsVerification, verificationRequired, type IssuedVerification } from './verification.ts';

/**
 * The user a verified id token stands for: the one already linked to this provider subject; else the
 * account with the same address, linked now only if the provider vouches for the address (otherwise
 * anyone could sign up at a provider with someone else's email and take their account); else a new
 * account.
 */
async function userFor(tx: Tx, ctx: EndUserCtx, provider: string, id: SocialIdentity): Promise<{ user: ProjectUser; created: boolean }> {
  const linked = await tx.userIdentity.findFirst({ where: { provider, subject: id.subject, user: { projectId: ctx.project.id } }, include: { user: true } });
  if (linked) return { user: linked.user, created: false };
  const emailKey = normalizeEmail(id.email);
  const existing = await tx.projectUser.findUnique({ where: { projectId_emailNormalized: { projectId: ctx.project.id, emailNormalized: emailKey } } });
  if (existing) {
    if (!id.emailVerified) throw unauthenticated('Invalid social login.');
    await tx.userIdentity.create({ data: { userId: existing.id, provider, subject: id.subject } });
    const user = existing.emailVerifiedAt ? existing : await tx.projectUser.update({ where: { id: existing.id }, data: { emailVerifiedAt: new Date() } });
    return { user, created: false };
  }
  const user = await tx.projectUser.create({
    data: {
      projectId: ctx.project.id,
      email: id.email.trim().slice(0, 255),
      emailNormalized: emailKey.slice(0, 255),
      displayName: id.name?.slice(0, 255) ?? null,
      emailVerifiedAt: id.emailVerified ? new Date() : null,
      identities: { create: { provider, subject: id.subject } },
    },
  });
  return { user, created: true };
}

/**
 * POST /api/auth/login/social: `id_token` verified against the provider's configured key set
 * (AUTH_SOCIAL_PROVIDERS); an unconfigured provider is 422, a token that fails is 401. Emits
 * `auth.login.success` (and `auth.signup.success` first when the account is new).
 */
export async function loginSocial(ctx: EndUserCtx, body: unknown): Promise<TokenPayload> {
  const input = parseBody(socialLoginBody, body);
  const verify = usersRuntime(ctx.services).social.get(input.provider);
  if (!verify) throw validationFailed({ provider: [`The provider '${input.provider}' is not configured for social login.`] });
  await ctx.limiter.draw('login', { address: ctx.ip });
  const identity = await verify(input.id_token, input.nonce);
  if (!identity) throw unauthenticated('Invalid social login.');
  await ctx.limiter.draw('login', { address: ctx.ip, account: normalizeEmail(identity.email) });

  const method = `social:${input.provider}`;
  type Outcome =
    | { user: ProjectUser; tokens: TokenPayload }
    | { user: ProjectUser; blocked: 'disabled' }
    | { user: ProjectUser; blocked: 'unverified'; issued: IssuedVerification };
  const outcome = await withRetryOnConflict(() => ctx.db.$transaction(async (tx): Promise<Outcome> => {
    const { user, created } = await userFor(tx, ctx, input.provider, identity);
    if (created) await emitAuthEvent(tx, ctx, 'auth.signup.success', { user: serializeUser(user), method });
    if (user.disabledAt) return { user, blocked: 'disabled' as const };
    if (needsVerification(ctx, user)) return { user, blocked: 'unverified' as const, issued: await issueVerification(tx, ctx, user) };
    const tokens = await startSession(tx, ctx, user, method);
    await emitAuthEvent(tx, ctx, 'auth.login.success', { user: tokens.user, method });
    return { user, tokens };
  }));
  if ('tokens' in outcome) return outcome.tokens;
  if (outcome.blocked === 'disabled') throw accountDisabled();
  throw verificationRequired(await deliverVerification(ctx, outcome.user, outcome.issued));
}

/**
 * Two first sign-ins of one person at once both try to create the account; the unique index lets one
 * win, and the other, run again, finds the account the winner made.
 */
async function withRetryOnConflict<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') return run();
    throw err;
  }
}
