import type { Project } from '../db/generated/prisma/client.ts';
import type { PrismaClient } from '../db/client.ts';
import type { Services } from '../context.ts';
import type { Logger } from '../logger.ts';

/**
 * What an end-user auth flow draws from: `draw` throws a 429 AppError when a budget is spent.
 * `login` is the budget of every password check (login, change-password); `user` that of every
 * request signed in with an access token or `uak_` key.
 */
export type AuthAction = 'signup' | 'login' | 'refresh' | 'verify' | 'user';

/**
 * Abuse budgets of the end-user flows, supplied by the request pipeline (src/edge/enduser.ts:
 * Redis when configured, so every replica shares them). Keys already carry the project.
 */
export interface AuthAttemptLimiter {
  /** One point from the address's budget for `action`, and from the account's when one is named. */
  draw(action: AuthAction, key: { address: string; account?: string }): Promise<void>;
  /** Seconds the account is still locked out after failed password checks (0 = not locked). */
  lockedFor(account: string): Promise<number>;
  /** Counts a failed password check; returns the lockout in seconds when this failure started one, else 0. */
  recordFailure(account: string): Promise<number>;
  /** A successful password check forgets the failures. */
  clearFailures(account: string): Promise<void>;
  /**
   * Runs password-hashing work in one of the address's few slots of this process (across projects:
   * the work is the machine's); throws a 429 AppError at once when they are all taken.
   */
  hashing<T>(address: string, work: () => Promise<T>): Promise<T>;
}

/**
 * The context of an end-user auth request: the project comes from the `project-id` header, there is
 * no CMS token (the end user may carry their own access token or `uak_` key in `bearer`). Events
 * these flows write carry source `api` (docs/webhooks.md).
 */
export interface EndUserCtx {
  services: Services;
  db: PrismaClient;
  project: Project;
  source: 'api';
  log: Logger;
  /** The client's address (budgets, session records). */
  ip: string;
  userAgent?: string;
  /** The `Authorization: Bearer` value, when sent. */
  bearer?: string;
  limiter: AuthAttemptLimiter;
}
