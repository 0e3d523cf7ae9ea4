import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { clientKey } from './client-key.ts';
import type { EdgeServices } from './services.ts';

/**
 * First renders of image variants (src/assets/files.ts) per client (`clientKey` of its address) and
 * minute. The file URL is public, and a variant not stored yet costs a decode and an encode; one
 * client asking for many new variants draws on this budget, while stored variants are served
 * without limit. Shared through Redis when configured, with a per-process fallback, like the other
 * budgets (src/edge/rate-limit.ts).
 */
const byConfig = new WeakMap<Config, RateLimiterAbstract>();

function limiterOf(services: EdgeServices): RateLimiterAbstract {
  let limiter = byConfig.get(services.config);
  if (!limiter) {
    const points = services.config.IMAGE_RENDERS_PER_MINUTE_ADDRESS;
    const memory = new RateLimiterMemory({ points, duration: 60, keyPrefix: 'img:render' });
    limiter = services.redis
      ? new RateLimiterRedis({ storeClient: services.redis, points, duration: 60, keyPrefix: 'cms:img:render', insuranceLimiter: memory, rejectIfRedisNotReady: true })
      : memory;
    byConfig.set(services.config, limiter);
  }
  return limiter;
}

/** Takes one render from the budget of `ip`'s client; 429 with Retry-After when it is spent. */
export async function drawRenderBudget(services: EdgeServices, ip: string | undefined): Promise<void> {
  try {
    await limiterOf(services).consume(clientKey(ip, services.config.RATE_LIMIT_IPV6_PREFIX));
  } catch (res) {
    if (!(res instanceof RateLimiterRes)) throw res;
    const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    throw new AppError(
      'RATE_LIMITED',
      `Too many new image variants requested from this address; retry in ${seconds} second${seconds === 1 ? '' : 's'}. Variants already rendered are served without limit.`,
      { retryAfter: seconds },
    );
  }
}
