import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import type { WebhookOptions } from './options.ts';
import type { DeliveryProcessor } from './processor.ts';

interface DeliveryJob {
  id: string;
}

/** Enqueueing never waits longer than this: the sweeper puts back whatever could not be added. */
const ENQUEUE_TIMEOUT_MS = 2000;
/**
 * BullMQ runs jobs without a priority before prioritised ones: a backlog the sweeper puts back (after
 * Redis was down, say) gets one, so events committed since pass it instead of waiting behind it.
 */
const BACKLOG_PRIORITY = 100;

/**
 * BullMQ side of the pipeline. The job id is the delivery id, so adding the same delivery twice
 * while its job exists is a no-op; jobs are removed when they finish, and the database row (not the
 * job) decides whether a delivery is still due, so a re-added finished delivery is skipped.
 */
export class DeliveryQueue {
  private queue?: Queue<DeliveryJob>;
  private queueConnection?: Redis;
  private worker?: Worker<DeliveryJob>;
  private workerConnection?: Redis;

  constructor(
    private readonly redisUrl: string,
    private readonly opts: WebhookOptions,
    private readonly log: Logger,
  ) {}

  private getQueue(): Queue<DeliveryJob> {
    if (!this.queue) {
      // While Redis is down, adds fail after one reconnect attempt instead of piling up in memory:
      // the deliveries are safe in PostgreSQL and the sweeper enqueues them once Redis is back.
      this.queueConnection = new Redis(this.redisUrl, { maxRetriesPerRequest: 1 });
      this.queueConnection.on('error', (err) => this.log.debug({ err: err.message }, 'webhook queue connection error'));
      this.queue = new Queue<DeliveryJob>(this.opts.queueName, {
        connection: this.queueConnection,
        prefix: this.opts.queuePrefix,
        defaultJobOptions: { removeOnComplete: true, removeOnFail: true, attempts: 1 },
      });
      this.queue.on('error', (err) => this.log.debug({ err: err.message }, 'webhook queue error'));
    }
    return this.queue;
  }

  /**
   * Puts deliveries on the queue; returns false when Redis did not take them (they stay pending).
   * `backlog`: overdue ones put back by the sweeper, which fresh deliveries overtake.
   */
  async enqueue(ids: readonly string[], opts: { backlog?: boolean } = {}): Promise<boolean> {
    if (ids.length === 0) return true;
    const queue = this.getQueue();
    const jobOpts = (id: string) => (opts.backlog ? { jobId: id, priority: BACKLOG_PRIORITY } : { jobId: id });
    const add = queue.addBulk(ids.map((id) => ({ name: 'deliver', data: { id }, opts: jobOpts(id) })));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('enqueue timed out')), ENQUEUE_TIMEOUT_MS);
    });
    try {
      await Promise.race([add, timeout]);
      return true;
    } catch (err) {
      add.catch(() => {});
      this.log.warn({ err: (err as Error).message, deliveries: ids.length }, 'could not enqueue webhook deliveries; the sweeper will retry');
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  startWorker(processor: DeliveryProcessor): void {
    this.workerConnection = new Redis(this.redisUrl, { maxRetriesPerRequest: null });
    this.workerConnection.on('error', (err) => this.log.debug({ err: err.message }, 'webhook worker connection error'));
    this.worker = new Worker<DeliveryJob>(
      this.opts.queueName,
      async (job: Job<DeliveryJob>, token?: string) => {
        const outcome = await processor.processById(job.data.id);
        if (outcome.result === 'retry') {
          // Same job, same id, later: the retry keeps deduplicating against sweeper re-adds.
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
    this.worker.on('error', (err) => this.log.warn({ err: err.message }, 'webhook worker error'));
    this.worker.on('failed', (job, err) => {
      if (err.name !== 'DelayedError') this.log.warn({ delivery: job?.data.id, err: err.message }, 'webhook job failed');
    });
  }

  /** Lets active sends finish, but never hangs a shutdown on an unreachable Redis. */
  async close(): Promise<void> {
    await bounded(this.worker?.close(), CLOSE_TIMEOUT_MS);
    await bounded(this.queue?.close(), CLOSE_TIMEOUT_MS);
    this.workerConnection?.disconnect();
    this.queueConnection?.disconnect();
  }
}

const CLOSE_TIMEOUT_MS = 15_000;

async function bounded(p: Promise<unknown> | undefined, ms: number): Promise<void> {
  if (!p) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p.catch(() => {}), new Promise<void>((ok) => (timer = setTimeout(ok, ms)))]);
  clearTimeout(timer);
}
