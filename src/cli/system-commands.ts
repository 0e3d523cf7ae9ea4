import { Redis } from 'ioredis';
import { migrate } from '../db/migrate.ts';
import type { CliEnv } from './env.ts';
import type { CommandOutput } from './output.ts';

export async function migrateCommand(env: CliEnv): Promise<CommandOutput> {
  const applied = await migrate(await env.db(false));
  return {
    json: { applied },
    human: applied.length ? `Applied ${applied.length} migration(s):\n${applied.map((m) => `  ${m}`).join('\n')}` : 'Nothing to apply: the database is up to date.',
  };
}

/** A check that hangs counts as down: a health probe must answer within its own timeout. */
const CHECK_TIMEOUT_MS = 3000;

async function check(probe: () => Promise<unknown>): Promise<'ok' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([probe(), timeout]);
    return 'ok';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What a process that serves no HTTP (the webhook worker) needs to work: the database and, when
 * configured, Redis. The same checks as the server's /readyz.
 */
export async function health(env: CliEnv): Promise<CommandOutput> {
  const checks: Record<string, 'ok' | 'down'> = {};
  checks.database = await check(async () => (await env.db(false)).query('SELECT 1'));
  const redisUrl = env.redisUrl();
  if (redisUrl) {
    const redis = new Redis(redisUrl, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: CHECK_TIMEOUT_MS });
    redis.on('error', () => {}); // reported as "down" below, not as an unhandled error event
    checks.redis = await check(async () => {
      await redis.connect();
      await redis.ping();
    });
    redis.disconnect();
  }
  const status = Object.values(checks).every((v) => v === 'ok') ? 'ok' : 'unavailable';
  return {
    json: { status, checks },
    human: Object.entries(checks)
      .map(([name, state]) => `${name.padEnd(8)} ${state}`)
      .join('\n'),
  };
}
