import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../../logger.ts';
import type { PurgeAdapter } from './purge-adapters.ts';

interface PurgeJob {
  tags: string[];
}

export interface PurgeQueueOptions {
  /** BullMQ's key prefix (the webhook queue's, WEBHOOK_QUEUE_PREFIX). */
  prefix: string;
  /** How long a purge waits after it is enqueued (EDGE_PURGE_DELAY_MS). */
  delayMs: number;
  /** Tries before a purge is given up (logged as an error). */
  attempts?: number;
  /** First retry after this long, doubling. */
  backoffMs?: number;
}

/**
 * How long a finished purge's id is remembered: every replica enqueues every change it reads, and
 * BullMQ adds a job id only once while it exists, so a replica whose feed is this far behind would
 * send a purge twice (harmless, a second soft purge). Replicas read the outbox within a second.
 */
const KEEP_SECONDS = 3600;

/** Enqueueing never holds the change stream longer than this; the purge is logged as lost. */
const ENQUEUE_TIMEOUT_MS = 2000;

export interface PurgeQueue {
  /** Purges `tags` once per `id` (ids name the change: the same change read by every replica has one id). */
  enqueue(id: string, tags: readonly string[]): Promise<void>;
  /** Stops taking and running purges (pending BullMQ jobs stay for the other replicas). */
  close(): Promise<void>;
}

/**
 * Purges through BullMQ: one job per change, its id derived from the change, so the replicas that
 * all read it add one job between them; whichever replica's worker takes it calls the CDN. A failed
 * call is retried with exponential backoff and logged; the write that caused it never waits.
 */
export function bullPurgeQueue(redisUrl: string, adapter: PurgeAdapter, log: Logger, opts: PurgeQueueOptions): PurgeQueue {
  const name = 'edge-purges';
  const queueConnection = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  queueConnection.on('error', (err) => log.debug({ err: err.message }, 'purge queue connection error'));
  const queue = new Queue<PurgeJob>(name, {
    connection: queueConnection,
    prefix: opts.prefix,
    defaultJobOptions: {
      attempts: opts.attempts ?? 8,
      backoff: { type: 'exponential', delay: opts.backoffMs ?? 1000 },
      removeOnComplete: { age: KEEP_SECONDS },
      removeOnFail: { age: 24 * 3600 },
    },
  });
  queue.on('error', (err) => log.debug({ err: err.message }, 'purge queue error'));
  const workerConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  workerConnection.on('error', (err) => log.debug({ err: err.message }, 'purge worker connection error'));
  const worker = new Worker<PurgeJob>(name, async (job: Job<PurgeJob>) => {
    await adapter.purge(job.data.tags);
    log.debug({ purge: job.id, tags: job.data.tags.length, cdn: adapter.name }, 'CDN purge sent');
  }, {
    connection: workerConnection,
    prefix: opts.prefix,
    concurrency: 8,
  });
  worker.on('error', (err) => log.warn({ err: err.message }, 'purge worker error'));
  worker.on('failed', (job, err) => {
    const final = job !== undefined && job.attemptsMade >= (job.opts.attempts ?? 1);
    log[final ? 'error' : 'warn']({ purge: job?.id, tags: job?.data.tags.length, attempt: job?.attemptsMade, cdn: adapter.name, err: err.message }, final ? 'CDN purge given up' : 'CDN purge failed; will retry');
  });
  return {
    async enqueue(id, tags) {
      const add = queue.add('purge', { tags: [...tags] }, { jobId: id, delay: opts.delayMs });
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([add, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('enqueue timed out')), ENQUEUE_TIMEOUT_MS)))]);
      } catch (err) {
        add.catch(() => {});
        log.error({ purge: id, err: (err as Error).message }, 'could not enqueue a CDN purge; its answers stay until s-maxage');
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      await worker.close().catch(() => {});
      await queue.close().catch(() => {});
      workerConnection.disconnect();
      queueConnection.disconnect();
    },
  };
}

/**
 * Without Redis (one process, embedded database): the same contract in memory, retries by timer.
 * Ids are remembered for the same while, so a change read twice is purged once.
 */
export function localPurgeQueue(adapter: PurgeAdapter, log: Logger, opts: PurgeQueueOptions): PurgeQueue {
  const seen = new LRUCache<string, true>({ max: 100_000, ttl: KEEP_SECONDS * 1000 });
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  const attempts = opts.attempts ?? 8;
  const backoff = opts.backoffMs ?? 1000;
  const run = (id: string, tags: readonly string[], attempt: number, delay: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      adapter.purge(tags).then(() => log.debug({ purge: id, tags: tags.length, cdn: adapter.name }, 'CDN purge sent'), (err: unknown) => {
        const final = attempt >= attempts;
        log[final ? 'error' : 'warn']({ purge: id, attempt, cdn: adapter.name, err: (err as Error).message }, final ? 'CDN purge given up' : 'CDN purge failed; will retry');
        if (!final && !closed) run(id, tags, attempt + 1, backoff * 2 ** (attempt - 1));
      });
    }, delay);
    timer.unref();
    timers.add(timer);
  };
  return {
    async enqueue(id, tags) {
      if (closed || seen.has(id)) return;
      seen.set(id, true);
      run(id, tags, 1, opts.delayMs);
    },
    async close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
