import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import { AppError, badRequest } from '../errors.ts';
import { isUuid } from '../uuid.ts';
import type { AuthAction, AuthAttemptLimiter, EndUserCtx } from '../users/context.ts';
import { bearerOf } from '../users/current-user.ts';
import { clientKey } from './client-key.ts';
import type { EdgeServices } from './services.ts';

/**
 * The request pipeline of the end-user auth routes (/api/auth/*): the project comes from the
 * `project-id` header alone (no CMS token), and the flows draw from their own abuse budgets, per
 * client address and per account, shared through Redis when configured (like src/edge/rate-limit.ts).
 */

export interface EndUserCredentials {
  projectId?: string | string[];
  authorization?: string | string[];
  userAgent?: string | string[];
  ip: string;
  requestId?: string;
}

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v)?.trim();

const ACTIONS: AuthAction[] = ['signup', 'login', 'refresh', 'verify', 'user'];

type Limiter = RateLimiterAbstract;

/** The budgets of one process, keyed by project + client (clientKey of the address) / account. */
interface Budgets {
  address: Map<AuthAction, Limiter>;
  account: Map<AuthAction, Limiter>;
  failures: Limiter;
  lockSeconds: number;
  attempts: number;
  /** Password hashes running per client address in this process, and how many may. */
  hashing: Map<string, number>;
  hashSlots: number;
  ipv6Prefix: number;
}

function limiter(redis: Redis | undefined, keyPrefix: string, points: number, duration: number): Limiter {
  const memory = new RateLimiterMemory({ points, duration, keyPrefix });
  return redis ? new RateLimiterRedis({ storeClient: redis, points, duration, keyPrefix: `cms:${keyPrefix}`, insuranceLimiter: memory, rejectIfRedisNotReady: true }) : memory;
}

function createBudgets(config: Config, redis?: Redis): Budgets {
  const address = new Map<AuthAction, Limiter>();
  const account = new Map<AuthAction, Limiter>();
  for (const action of ACTIONS) {
    const perAddress = action === 'user' ? config.AUTH_RATE_PER_MINUTE_USER : config.AUTH_RATE_PER_MINUTE_ADDRESS;
    address.set(action, limiter(redis, `ua:${action}:ip`, perAddress, 60));
    account.set(action, limiter(redis, `ua:${action}:acct`, config.AUTH_RATE_PER_MINUTE_ACCOUNT, 60));
  }
  return {
    address,
    account,
    failures: limiter(redis, 'ua:fail', config.AUTH_LOCKOUT_ATTEMPTS, config.AUTH_LOCKOUT_SECONDS),
    lockSeconds: config.AUTH_LOCKOUT_SECONDS,
    attempts: config.AUTH_LOCKOUT_ATTEMPTS,
    hashing: new Map(),
    hashSlots: config.AUTH_HASH_CONCURRENCY_PER_ADDRESS,
    ipv6Prefix: config.RATE_LIMIT_IPV6_PREFIX,
  };
}

const tooMany = (seconds: number) => new AppError('RATE_LIMITED', 'Too Many Attempts.', { retryAfter: seconds, extra: { retry_after: seconds } });
const secondsOf = (res: RateLimiterRes) => Math.max(1, Math.ceil(res.msBeforeNext / 1000));

/** The limiter interface the users domain sees, bound to one project. */
function boundLimiter(b: Budgets, projectUuid: string): AuthAttemptLimiter {
  const key = (k: string) => `${projectUuid}:${k}`;
  const client = (address: string) => clientKey(address, b.ipv6Prefix);
  return {
    async draw(action, { address, account }) {
      try {
        await b.address.get(action)!.consume(key(client(address)));
        if (account !== undefined) await b.account.get(action)!.consume(key(account));
      } catch (res) {
        if (res instanceof RateLimiterRes) throw tooMany(secondsOf(res));
        throw res;
      }
    },
    async lockedFor(account) {
      const res = await b.failures.get(key(account));
      return res && res.consumedPoints >= b.attempts ? secondsOf(res) : 0;
    },
    async recordFailure(account) {
      const res = await b.failures.penalty(key(account), 1);
      if (res.consumedPoints < b.attempts) return 0;
      // The lockout runs its full length from the failure that started it.
      await b.failures.block(key(account), b.lockSeconds);
      return b.lockSeconds;
    },
    async clearFailures(account) {
      await b.failures.delete(key(account));
    },
    async hashing(address, work) {
      const slot = client(address);
      // Refused rather than queued: a queue would hold the requests (and their bodies) of whoever
      // floods, and each waiting hash still costs its 19 MiB once it runs.
      const running = b.hashing.get(slot) ?? 0;
      if (running >= b.hashSlots) throw tooMany(1);
      b.hashing.set(slot, running + 1);
      try {
        return await work();
      } finally {
        const left = (b.hashing.get(slot) ?? 1) - 1;
        if (left > 0) b.hashing.set(slot, left);
        else b.hashing.delete(slot);
      }
    },
  };
}

/** One set of budgets per configuration + Redis connection (a process has one). */
const budgetsByConfig = new WeakMap<Config, Budgets>();

function budgetsOf(services: EdgeServices): Budgets {
  let b = budgetsByConfig.get(services.config);
  if (!b) budgetsByConfig.set(services.config, (b = createBudgets(services.config, services.redis)));
  return b;
}

/** 400 when the header is missing or names no project (as for CMS routes); no token needed. */
export async function admitEndUser(services: EdgeServices, creds: EndUserCredentials): Promise<EndUserCtx> {
  const projectUuid = one(creds.projectId);
  if (!projectUuid) throw badRequest('Project header missing.');
  if (!isUuid(projectUuid)) throw badRequest('Project not found.');
  const project = await services.database.prisma.project.findUnique({ where: { uuid: projectUuid.toLowerCase() } });
  if (!project) throw badRequest('Project not found.');
  return {
    services,
    db: services.database.prisma,
    project,
    source: 'api',
    log: services.log.child({ reqId: creds.requestId, project: project.uuid, enduser: true }),
    ip: creds.ip,
    userAgent: one(creds.userAgent),
    bearer: bearerOf(one(creds.authorization)),
    limiter: boundLimiter(budgetsOf(services), project.uuid),
  };
}
