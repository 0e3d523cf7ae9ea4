import { lookup } from 'node:dns/promises';
import { z } from 'zod';
import type { Config } from '../config.ts';

/** Returns every address a hostname resolves to (IPv4 and IPv6). Injected by tests. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export const systemResolveHost: ResolveHost = async (hostname) => {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => a.address);
};

/**
 * Everything the delivery pipeline is tuned by. The documented knobs come from src/config.ts; the
 * operational ones below are read from the environment here (see docs/webhooks.md) and tests
 * overwrite fields before `start()`.
 */
export interface WebhookOptions {
  allowHttp: boolean;
  allowPrivateNetworks: boolean;
  /** Receivers on this machine (localhost, loopback addresses), plain http included: see allowsLocalhost. */
  allowLocalhost: boolean;
  timeoutMs: number;
  maxAttempts: number;
  disableAfterFailures: number;
  logRetentionDays: number;
  /** Dispatched outbox rows are kept this long (they are no longer needed once dispatched). */
  outboxRetentionHours: number;
  /** BullMQ key prefix; lets several deployments (or test files) share one Redis. */
  queuePrefix: string;
  queueName: string;
  /** First retry delay; each further retry waits 4x longer, capped at retryMaxMs, ±20 % jitter. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Deliveries sent at once by one process. */
  concurrency: number;
  /** Fallback poll of the outbox (and of due deliveries without Redis). */
  pollIntervalMs: number;
  /** How often stuck pending deliveries are put back on the queue. */
  sweepIntervalMs: number;
  /** How late a pending delivery must be before the sweeper re-enqueues it. */
  sweepGraceMs: number;
  cleanupIntervalMs: number;
  /** A claimed ("sending") delivery whose process died is retried after this long. */
  leaseMs: number;
  /** BullMQ lock and stalled-job check (crash recovery of active jobs). */
  lockDurationMs: number;
  stalledIntervalMs: number;
  requestLogLimitBytes: number;
  responseLogLimitBytes: number;
  resolveHost: ResolveHost;
}

const int = (fallback: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).optional().transform((v) => v ?? fallback);

const extraEnv = z.object({
  WEBHOOK_QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/).default('cms'),
  WEBHOOK_RETRY_BASE_MS: int(10_000, 10, 86_400_000),
  WEBHOOK_RETRY_MAX_MS: int(6 * 3_600_000, 10, 7 * 86_400_000),
  WEBHOOK_CONCURRENCY: int(64, 1, 1000),
  WEBHOOK_POLL_INTERVAL_MS: int(1000, 10, 60_000),
  WEBHOOK_SWEEP_INTERVAL_MS: int(5000, 100, 3_600_000),
  WEBHOOK_LEASE_MS: z.coerce.number().int().min(100).max(3_600_000).optional(),
  WEBHOOK_LOCK_DURATION_MS: int(30_000, 1000, 600_000),
});

/**
 * Whether receivers on this machine are called: as set, else on for the embedded database outside
 * production, so `npm start` on a laptop can send webhooks to a local receiver with nothing to set
 * (the server logs it at start). A server on PostgreSQL is a deployment and keeps them off.
 */
export function allowsLocalhost(config: Pick<Config, 'WEBHOOK_ALLOW_LOCALHOST' | 'DATABASE_URL' | 'NODE_ENV'>): boolean {
  return config.WEBHOOK_ALLOW_LOCALHOST ?? (config.DATABASE_URL === undefined && config.NODE_ENV !== 'production');
}

export function webhookOptions(config: Config, env: NodeJS.ProcessEnv = process.env): WebhookOptions {
  const extra = extraEnv.parse(env);
  return {
    allowHttp: config.WEBHOOK_ALLOW_HTTP,
    allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    allowLocalhost: allowsLocalhost(config),
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
    disableAfterFailures: config.WEBHOOK_DISABLE_AFTER_FAILURES,
    logRetentionDays: config.WEBHOOK_LOG_RETENTION_DAYS,
    outboxRetentionHours: 24,
    queuePrefix: extra.WEBHOOK_QUEUE_PREFIX,
    queueName: 'webhook-deliveries',
    retryBaseMs: extra.WEBHOOK_RETRY_BASE_MS,
    retryMaxMs: extra.WEBHOOK_RETRY_MAX_MS,
    concurrency: extra.WEBHOOK_CONCURRENCY,
    pollIntervalMs: extra.WEBHOOK_POLL_INTERVAL_MS,
    sweepIntervalMs: extra.WEBHOOK_SWEEP_INTERVAL_MS,
    sweepGraceMs: Math.max(1000, Math.min(30_000, extra.WEBHOOK_SWEEP_INTERVAL_MS)),
    cleanupIntervalMs: 3_600_000,
    leaseMs: extra.WEBHOOK_LEASE_MS ?? config.WEBHOOK_TIMEOUT_MS + 30_000,
    lockDurationMs: extra.WEBHOOK_LOCK_DURATION_MS,
    stalledIntervalMs: extra.WEBHOOK_LOCK_DURATION_MS,
    requestLogLimitBytes: 16 * 1024,
    responseLogLimitBytes: 8 * 1024,
    resolveHost: systemResolveHost,
  };
}

/**
 * Delay before the retry that follows failed attempt `attempt` (1-based): base·4^(attempt-1),
 * capped, ±20 % jitter so a receiver that comes back is not hit by every retry at the same instant.
 */
export function retryDelayMs(opts: Pick<WebhookOptions, 'retryBaseMs' | 'retryMaxMs'>, attempt: number, random = Math.random): number {
  const raw = Math.min(opts.retryMaxMs, opts.retryBaseMs * 4 ** Math.max(0, attempt - 1));
  return Math.max(1, Math.round(raw * (0.8 + 0.4 * random())));
}
