import { AppError } from '../errors.ts';
import type { EndUserCtx } from './context.ts';
import { hashPassword, verifyPassword } from './passwords.ts';

export const INVALID_CREDENTIALS = 'Invalid credentials.';

/** 429 of a locked-out account: the failed login's message, plus `retry_after`. */
export const lockedOut = (seconds: number) => new AppError('RATE_LIMITED', INVALID_CREDENTIALS, { retryAfter: seconds, extra: { retry_after: seconds } });

/**
 * The one check of an account's password, wherever one is asked for (login, change-password, and
 * any later flow that re-asks it). In order: a point from the address's and the account's `login`
 * budgets, the account's lockout, a hashing slot of the address, the argon2 comparison; a failure
 * counts towards the lockout, a success forgets the failures. So a guess costs the same budget on
 * every route, and a lockout started on one route holds on all of them, even for the right password.
 *
 * `account` is the normalized email (unknown addresses are counted too, so a lockout reveals
 * nothing); `load` runs after the budget and lockout, so a refused guess costs no query. Returns the
 * loaded account when the password matches it, else null; throws 429 when a budget is spent, the
 * account is locked, or this failure locked it.
 */
export async function checkPassword<A extends { passwordHash: string | null }>(
  ctx: EndUserCtx,
  account: string,
  plain: string,
  load: () => Promise<A | null>,
): Promise<A | null> {
  await ctx.limiter.draw('login', { address: ctx.ip, account });
  const locked = await ctx.limiter.lockedFor(account);
  if (locked > 0) throw lockedOut(locked);
  const found = await load();
  // Without a stored hash (unknown address, social-only account) the comparison still runs against a
  // dummy hash, so the answer takes as long whether or not the account exists.
  const ok = await ctx.limiter.hashing(ctx.ip, () => verifyPassword(found?.passwordHash, plain));
  if (!ok || !found) {
    const lockout = await ctx.limiter.recordFailure(account);
    if (lockout > 0) throw lockedOut(lockout);
    return null;
  }
  await ctx.limiter.clearFailures(account);
  return found;
}

/** A new password's hash, in one of the address's hashing slots (signup, change-password). */
export const hashNewPassword = (ctx: EndUserCtx, plain: string): Promise<string> => ctx.limiter.hashing(ctx.ip, () => hashPassword(plain));
