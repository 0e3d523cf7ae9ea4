import { z } from 'zod';

/**
 * What the schedule machinery is tuned by, read from the environment here (docs/schedules.md);
 * tests overwrite fields before `start()` (a private queue prefix, short intervals).
 */
export interface ScheduleOptions {
  /** BullMQ key prefix; lets several deployments (or test files) share one Redis. */
  queuePrefix: string;
  queueName: string;
  /**
   * How often a running worker puts back on the queue the schedules due within `horizonMs` that
   * Redis does not hold (lost, never added). Each pass is one indexed read of pending rows.
   */
  sweepIntervalMs: number;
  horizonMs: number;
  /** Without Redis: how often the table is polled for due schedules. */
  pollIntervalMs: number;
  /** A release run whose worker died is taken over after this long. */
  leaseMs: number;
  /** Schedules run at once by one worker. */
  concurrency: number;
  /** BullMQ lock and stalled-job check (crash recovery of active jobs). */
  lockDurationMs: number;
  stalledIntervalMs: number;
}

const int = (fallback: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).optional().transform((v) => v ?? fallback);

const env = z.object({
  SCHEDULE_QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/).optional(),
  WEBHOOK_QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/).optional(),
  SCHEDULE_SWEEP_INTERVAL_MS: int(30_000, 100, 3_600_000),
  SCHEDULE_POLL_INTERVAL_MS: int(1000, 10, 60_000),
  SCHEDULE_LEASE_MS: int(120_000, 1000, 3_600_000),
});

export function scheduleOptions(source: NodeJS.ProcessEnv = process.env): ScheduleOptions {
  const e = env.parse(source);
  return {
    // One prefix per deployment by default: the webhook queue's, so a deployment that set it needs nothing more.
    queuePrefix: e.SCHEDULE_QUEUE_PREFIX ?? e.WEBHOOK_QUEUE_PREFIX ?? 'cms',
    queueName: 'scheduled-actions',
    sweepIntervalMs: e.SCHEDULE_SWEEP_INTERVAL_MS,
    // Twice the sweep interval: a schedule lost from Redis is back on the queue before it is due.
    horizonMs: 2 * e.SCHEDULE_SWEEP_INTERVAL_MS,
    pollIntervalMs: e.SCHEDULE_POLL_INTERVAL_MS,
    leaseMs: e.SCHEDULE_LEASE_MS,
    concurrency: 8,
    lockDurationMs: 30_000,
    stalledIntervalMs: 30_000,
  };
}
