import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import type { ScheduleOptions } from './options.ts';
import type { ScheduleProcessor } from './processor.ts';
import type { Due } from './store.ts';

interface ScheduleJob {
  id: string;
  kind: Due['kind'];
}

/** Enqueueing never waits longer than this: the sweeper puts back whatever could not be added. */
const ENQUEUE_TIMEOUT_MS = 2000;
const CLOSE_TIMEOUT_MS = 15_000;

/**
 * BullMQ side of schedules: one delayed job per pending schedule, job id = schedule id, so adding a
 * schedule that is already queued is a no-op (several API processes and sweepers may all add it).
 * Jobs are removed when they finish; the row, not the job, decides whether there is anything to do.
 */
export class ScheduleQueue {
  private queue?: Queue<ScheduleJob>;
  private queueConnection?: Redis;
  private worker?: Worker<ScheduleJob>;
  private workerConnection?: Redis;

  constructor(
    private readonly redisUrl: string,
    private readonly opts: ScheduleOptions,
    private readonly log: Logger,
  ) {}

  private getQueue(): Queue<ScheduleJob> {
    if (!this.queue) {
      // While Redis is down, adds fail fast: the rows are safe in PostgreSQL and the sweeper re-adds them.
      this.queueConnection = new Redis(this.redisUrl, { maxRetriesPerRequest: 1 });
      this.queueConnection.on('error', (err) => this.log.debug({ err: err.message }, 'schedule queue connection error'));
      this.queue = new Queue<ScheduleJob>(this.opts.queueName, {
        connection: this.queueConnection,
        prefix: this.opts.queuePrefix,
        defaultJobOptions: { removeOnComplete: true, removeOnFail: true, attempts: 1 },
      });
      this.queue.on('error', (err) => this.log.debug({ err: err.message }, 'schedule queue error'));
    }
    return this.queue;
  }

  /** Adds delayed jobs; returns false when Redis did not take them (they stay pending in the table). */
  async enqueue(items: readonly Due[]): Promise<boolean> {
    if (items.length === 0) return true;
    const now = Date.now();
    const add = this.getQueue().addBulk(
      items.map((s) => ({ name: 'run', data: { id: s.id, kind: s.kind }, opts: { jobId: s.id, delay: Math.max(0, s.run_at.getTime() - now) } })),
    );
    return this.bounded(add, items.length);
  }

  /** Drops a cancelled schedule's job (a job already running finds the row cancelled and does nothing). */
  async remove(id: string): Promise<void> {
    try {
      await this.bounded(this.getQueue().remove(id), 1);
    } catch {
      // The row says cancelled: a job left behind is a no-op.
    }
  }

  private async bounded(p: Promise<unknown>, count: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('enqueue timed out')), ENQUEUE_TIMEOUT_MS);
    });
    try {
      await Promise.race([p, timeout]);
      return true;
    } catch (err) {
      p.catch(() => {});
      this.log.warn({ err: (err as Error).message, schedules: count }, 'schedule queue unreachable; the sweeper will retry');
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  startWorker(processor: ScheduleProcessor): void {
    this.workerConnection = new Redis(this.redisUrl, { maxRetriesPerRequest: null });
    this.workerConnection.on('error', (err) => this.log.debug({ err: err.message }, 'schedule worker connection error'));
    this.worker = new Worker<ScheduleJob>(
      this.opts.queueName,
      async (job: Job<ScheduleJob>, token?: string) => {
        const outcome = await processor.run(job.data.id, job.data.kind);
        if (outcome.result === 'early') {
          await job.moveToDelayed(outcome.at.getTime(), token);
          throw new DelayedError();
        }
        return outcome.result;
      },
      {
        connection: this.workerConnection,
        prefix: this.opts.queuePrefix,
        concurrency: this.opts.concurrency,
        lockDuration: this.opts.lockDurationMs,
        stalledInterval: this.opts.stalledIntervalMs,
        maxStalledCount: 1,
        removeOnComplete: { count: 0 },
        removeOnFail: { count: 0 },
      },
    );
    this.worker.on('error', (err) => this.log.warn({ err: err.message }, 'schedule worker error'));
    this.worker.on('failed', (job, err) => {
      if (err.name !== 'DelayedError') this.log.warn({ schedule: job?.data.id, err: err.message }, 'schedule job failed; the sweeper will retry');
    });
  }

  async close(): Promise<void> {
    await bounded(this.worker?.close(), CLOSE_TIMEOUT_MS);
    await bounded(this.queue?.close(), CLOSE_TIMEOUT_MS);
    this.workerConnection?.disconnect();
    this.queueConnection?.disconnect();
  }
}

async function bounded(p: Promise<unknown> | undefined, ms: number): Promise<void> {
  if (!p) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p.catch(() => {}), new Promise<void>((ok) => (timer = setTimeout(ok, ms)))]);
  clearTimeout(timer);
}
