import type { Services } from '../context.ts';
import type { Logger } from '../logger.ts';
import { SerialRunner } from '../serial-runner.ts';
import { scheduleOptions, type ScheduleOptions } from './options.ts';
import { ScheduleProcessor } from './processor.ts';
import { ScheduleQueue } from './queue.ts';
import type { ReleaseRunner } from './runners.ts';
import { dueNow, pendingPage, type Due } from './store.ts';

declare module '../context.ts' {
  interface Services {
    /** Scheduled publishes and unpublishes: enqueue from any process; `schedules.start()` makes this process run them. */
    schedules?: ScheduleRuntime;
  }
}

/**
 * The schedule machinery of one process. Every process can schedule (the operations put the job on
 * the queue after their commit); `start()` turns the process into a runner: BullMQ worker plus the
 * restore and sweep passes with Redis, a poll of the table without it. Started wherever webhook
 * delivery is (API replicas unless WORKER_IN_PROCESS=false, and `npm run worker`); any number may run.
 */
export interface ScheduleRuntime {
  /** Mutable until `start()` (tests set a private queue prefix and short intervals). */
  readonly options: ScheduleOptions;
  readonly mode: 'queue' | 'local';
  readonly started: boolean;
  /** What runs release schedules; set by the composition root. Without it they wait for a process that has one. */
  releases?: ReleaseRunner;
  /** Puts committed schedules on the queue (a failure leaves them to the sweeper). */
  enqueue(items: Due[]): Promise<void>;
  /** Drops a cancelled schedule's job. */
  cancelled(id: string): Promise<void>;
  /** Replaces a rescheduled schedule's job by one due at its new time. */
  moved(item: Due): Promise<void>;
  start(): Promise<void>;
  /** Re-adds every pending schedule (null) or those due before `until`; answers how many it handed on. */
  restore(until?: Date | null): Promise<number>;
  close(): Promise<void>;
}

export function createScheduleRuntime(deps: { services: () => Services; redisUrl?: string; log: Logger }): ScheduleRuntime {
  return new Runtime(deps);
}

const PAGE = 1000;
/** A pending schedule this late is run by the sweep itself rather than left to its job. */
const OVERDUE_MS = 1000;

class Runtime implements ScheduleRuntime {
  readonly options = scheduleOptions();
  readonly mode: 'queue' | 'local';
  started = false;
  releases?: ReleaseRunner;
  private queue?: ScheduleQueue;
  private readonly log: Logger;
  private closed = false;
  private timers: NodeJS.Timeout[] = [];
  private poller?: SerialRunner;
  private active = new Set<Promise<unknown>>();
  private processor?: ScheduleProcessor;

  constructor(private readonly deps: { services: () => Services; redisUrl?: string; log: Logger }) {
    this.mode = deps.redisUrl ? 'queue' : 'local';
    this.log = deps.log.child({ component: 'schedules' });
  }

  private getQueue(): ScheduleQueue {
    this.queue ??= new ScheduleQueue(this.deps.redisUrl!, this.options, this.log);
    return this.queue;
  }

  async enqueue(items: Due[]): Promise<void> {
    if (items.length === 0) return;
    if (this.mode === 'queue') await this.getQueue().enqueue(items);
    // Without Redis the table is the queue: runners find the row on their next poll.
  }

  async cancelled(id: string): Promise<void> {
    if (this.mode === 'queue') await this.getQueue().remove(id);
  }

  /**
   * The job id is the schedule id, so the old job goes before the new one can be added. A job that
   * could not be removed (running now, or Redis away) is harmless: run early, it finds the row not
   * yet due and waits for the new time; left late, the sweep runs the overdue row itself.
   */
  async moved(item: Due): Promise<void> {
    if (this.mode !== 'queue') return;
    await this.getQueue().remove(item.id);
    await this.getQueue().enqueue([item]);
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const processor = new ScheduleProcessor(this.deps.services, this.options, () => this.releases, this.log);
    this.processor = processor;
    if (this.mode === 'queue') {
      const queue = this.getQueue();
      queue.startWorker(processor);
      // Whatever Redis lost (or never got) goes back now; what fell due while nothing ran runs at once.
      // In the background: a backlog of overdue schedules must not hold up the process's start.
      const restoring = this.restore(null).catch((err) => this.log.warn({ err: (err as Error).message }, 'restoring schedules failed; the sweeper will retry'));
      this.active.add(restoring);
      void restoring.finally(() => this.active.delete(restoring));
      this.every(this.options.sweepIntervalMs, async () => {
        await this.restore(new Date(Date.now() + this.options.horizonMs));
      });
    } else {
      this.poller = new SerialRunner(() => this.poll(processor), () => this.closed);
      this.every(this.options.pollIntervalMs, async () => this.poller?.wake());
      this.poller.wake();
    }
    this.log.info({ mode: this.mode }, 'schedules started');
  }

  async restore(until: Date | null = null): Promise<number> {
    const db = this.deps.services().database.prisma;
    let after: Due | null = null;
    let n = 0;
    for (;;) {
      const page = await pendingPage(db, until, after, PAGE);
      if (page.length === 0) return n;
      const queued = await this.getQueue().enqueue(page);
      // Overdue ones are run here as well: their job may sit in Redis held by a worker that died
      // (BullMQ hands it on only after its lock runs out). The claim keeps the two runs to one.
      await this.runOverdue(page);
      if (!queued) return n;
      n += page.length;
      if (page.length < PAGE || this.closed) return n;
      after = page[page.length - 1];
    }
  }

  private async runOverdue(page: Due[]): Promise<void> {
    const cutoff = Date.now() - OVERDUE_MS;
    for (const d of page) {
      if (this.closed || !this.processor) return;
      if (d.run_at.getTime() > cutoff) continue;
      const p = this.processor.run(d.id, d.kind).catch((err) => this.log.warn({ err: (err as Error).message, schedule: d.id }, 'overdue scheduled action failed; will retry'));
      this.active.add(p);
      await p;
      this.active.delete(p);
    }
  }

  private async poll(processor: ScheduleProcessor): Promise<void> {
    try {
      const due = await dueNow(this.deps.services().database.prisma, 50);
      for (const d of due) {
        if (this.closed) return;
        const p = processor.run(d.id, d.kind).catch((err) => this.log.warn({ err: (err as Error).message, schedule: d.id }, 'scheduled action failed; will retry'));
        this.active.add(p);
        await p;
        this.active.delete(p);
      }
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'polling schedules failed; will retry');
    }
  }

  private every(ms: number, fn: () => Promise<void>): void {
    let busy = false;
    const t = setInterval(() => {
      if (busy) return;
      busy = true;
      fn()
        .catch((err) => this.log.warn({ err: (err as Error).message }, 'schedule background task failed'))
        .finally(() => (busy = false));
    }, ms);
    t.unref();
    this.timers.push(t);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    await this.poller?.current;
    await Promise.allSettled([...this.active]);
    await this.queue?.close();
  }
}
