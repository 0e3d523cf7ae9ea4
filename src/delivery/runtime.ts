import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import type { OutboxReader } from '../events/port.ts';
import { OutboxDispatcher } from './dispatcher.ts';
import { WebhookHttpSender } from './http-sender.ts';
import { LocalDeliveryRunner } from './local-runner.ts';
import { webhookOptions, type WebhookOptions } from './options.ts';
import { DeliveryProcessor } from './processor.ts';
import { DeliveryQueue } from './queue.ts';
import { DeliveryStore, type OverduePosition } from './store.ts';

/** One sweep puts back overdue deliveries this many at a time, and at most SWEEP_MAX of them (Redis holds a few hundred bytes per job). */
const SWEEP_PAGE = 1000;
const SWEEP_MAX = 50_000;

declare module '../context.ts' {
  interface Services {
    /** Webhook delivery: enqueue from any process; `webhooks.start()` makes this process a deliverer. */
    webhooks: WebhookRuntime;
  }
}

/** What the delivery machinery needs of its process (a subset of Services, so it does not import that type). */
export interface RuntimeDeps {
  config: Config;
  database: Database;
  log: Logger;
  /**
   * Other domains' retention passes (e.g. the trash purge), run with the webhook retention by the
   * deliverer process, each answering how many rows it deleted. Handed in by the composition root so
   * this module depends on no domain that writes to the outbox (which would be an import cycle).
   */
  retention?: Record<string, () => Promise<number>>;
}

/**
 * The webhook delivery machinery of one process. Every process can enqueue (admin operations do);
 * `start()` turns the process into a deliverer: dispatcher + BullMQ worker + sweeper with Redis, or
 * dispatcher + in-process runner without it, plus the retention cleanup. API replicas start it
 * unless WORKER_IN_PROCESS=false; `npm run worker` starts nothing else.
 */
export interface WebhookRuntime extends OutboxReader {
  /** Mutable until `start()` (tests inject a DNS resolver, a queue prefix, short intervals). */
  readonly options: WebhookOptions;
  readonly mode: 'queue' | 'local';
  readonly started: boolean;
  /** Makes deliveries that are due now reach a deliverer promptly (ping, redeliver, dispatch). */
  enqueue(deliveryIds: string[]): Promise<void>;
  start(): Promise<void>;
  /** One retention pass (also run periodically once started). */
  cleanup(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

export function createWebhookRuntime(services: RuntimeDeps): WebhookRuntime {
  return new Runtime(services);
}

class Runtime implements WebhookRuntime {
  readonly options: WebhookOptions;
  readonly mode: 'queue' | 'local';
  started = false;
  private readonly store: DeliveryStore;
  private readonly log: Logger;
  private queue?: DeliveryQueue;
  private sender?: WebhookHttpSender;
  private dispatcher?: OutboxDispatcher;
  private runner?: LocalDeliveryRunner;
  private timers: NodeJS.Timeout[] = [];
  private closing?: Promise<void>;

  constructor(private readonly services: RuntimeDeps) {
    this.options = webhookOptions(services.config);
    this.mode = services.config.REDIS_URL ? 'queue' : 'local';
    this.store = new DeliveryStore(services.database);
    this.log = services.log.child({ component: 'webhooks' });
  }

  outboxWritten(): void {
    // PostgreSQL wakes dispatchers through NOTIFY at commit. PGlite has no second connection to
    // listen on; its dispatcher query queues behind the open transaction, so a nudge now is enough.
    if (this.services.database.kind === 'pglite' && this.dispatcher) setImmediate(() => this.dispatcher?.wake());
  }

  async enqueue(deliveryIds: string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    if (this.mode === 'queue') {
      this.queue ??= new DeliveryQueue(this.services.config.REDIS_URL!, this.options, this.log);
      await this.queue.enqueue(deliveryIds);
    } else {
      // Without Redis the table is the queue: a running runner here claims them now, any other
      // process on its next poll.
      this.runner?.kick();
    }
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const opts = this.options;
    this.sender = new WebhookHttpSender(
      () => ({ allowHttp: opts.allowHttp, allowPrivateNetworks: opts.allowPrivateNetworks, allowLocalhost: opts.allowLocalhost }),
      () => opts.resolveHost,
    );
    const processor = new DeliveryProcessor(this.store, this.sender, opts, this.log);
    if (this.mode === 'queue') {
      this.queue ??= new DeliveryQueue(this.services.config.REDIS_URL!, opts, this.log);
      this.queue.startWorker(processor);
      this.every(opts.sweepIntervalMs, () => this.sweep());
    } else {
      this.runner = new LocalDeliveryRunner(this.store, processor, opts, this.log);
      this.runner.start();
    }
    this.dispatcher = new OutboxDispatcher(
      this.store,
      (ids) => this.enqueue(ids),
      opts.pollIntervalMs,
      this.log,
      this.services.database.kind === 'postgres' ? this.services.config.DATABASE_URL : undefined,
    );
    await this.dispatcher.start();
    // Retention runs a minute after start (short-lived processes still clean up), then periodically.
    const firstCleanup = setTimeout(() => void this.cleanup().catch((err) => this.log.warn({ err: (err as Error).message }, 'webhook retention cleanup failed')), 60_000);
    firstCleanup.unref();
    this.timers.push(firstCleanup);
    this.every(opts.cleanupIntervalMs, () => this.cleanup().then(() => undefined));
    this.log.info({ mode: this.mode, concurrency: opts.concurrency }, 'webhook delivery started');
  }

  /**
   * Re-enqueues deliveries Redis lost or never got (it was down, a process died between steps). A
   * backlog goes back in pages until it is all queued (bounded per sweep), so the workers drain it at
   * their own pace rather than at one page per sweep interval; it is queued behind fresh deliveries.
   */
  private async sweep(): Promise<void> {
    let after: OverduePosition | undefined;
    let queued = 0;
    while (queued < SWEEP_MAX && !this.closing) {
      const page = await this.store.overdue(this.options.sweepGraceMs, SWEEP_PAGE, after);
      if (page.length === 0 || !(await this.queue?.enqueue(page.map((r) => r.id), { backlog: true }))) break;
      queued += page.length;
      after = page[page.length - 1];
      if (page.length < SWEEP_PAGE) break;
    }
    if (queued) this.log.debug({ deliveries: queued }, 're-enqueued overdue webhook deliveries');
  }

  async cleanup(): Promise<Record<string, number>> {
    const deleted = await this.store.cleanup(this.options);
    for (const [name, pass] of Object.entries(this.services.retention ?? {})) {
      // One failing pass must not keep the others (or the webhook tables) from being cleaned.
      try {
        deleted[name] = await pass();
      } catch (err) {
        this.log.warn({ err: (err as Error).message, pass: name }, 'retention pass failed');
      }
    }
    if (Object.values(deleted).some((n) => n > 0)) this.log.info({ deleted }, 'webhook retention cleanup');
    return deleted;
  }

  private every(ms: number, fn: () => Promise<void>): void {
    let busy = false;
    const t = setInterval(() => {
      if (busy) return;
      busy = true;
      fn()
        .catch((err) => this.log.warn({ err: (err as Error).message }, 'webhook background task failed'))
        .finally(() => (busy = false));
    }, ms);
    t.unref();
    this.timers.push(t);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const t of this.timers) clearTimeout(t);
      await this.dispatcher?.close();
      await this.runner?.close();
      await this.queue?.close();
      this.sender?.close();
    })();
    return this.closing;
  }
}
