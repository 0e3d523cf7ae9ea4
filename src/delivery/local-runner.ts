import type { Logger } from '../logger.ts';
import type { WebhookOptions } from './options.ts';
import type { DeliveryProcessor } from './processor.ts';
import type { DeliveryStore } from './store.ts';
import { SerialRunner } from '../serial-runner.ts';

/**
 * Delivery scheduling without Redis (embedded mode, or PostgreSQL without REDIS_URL): due
 * deliveries are claimed straight from webhook_deliveries (SKIP LOCKED, so several processes can
 * share the table) and run through the same processor as the BullMQ worker. Retries are just rows
 * whose next_attempt_at lies in the future.
 */
export class LocalDeliveryRunner {
  private inFlight = 0;
  private closed = false;
  private readonly runner = new SerialRunner(() => this.poll(), () => this.closed);
  /** The last claim filled every free slot, so more due work probably waits. */
  private backlog = false;
  private timer?: NodeJS.Timeout;
  private readonly active = new Set<Promise<unknown>>();

  constructor(
    private readonly store: DeliveryStore,
    private readonly processor: DeliveryProcessor,
    private readonly opts: WebhookOptions,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.kick(), this.opts.pollIntervalMs);
    this.timer.unref();
    this.kick();
  }

  /** Claims due deliveries now (new work was dispatched or a slot freed up). */
  kick(): void {
    this.runner.wake();
  }

  private async poll(): Promise<void> {
    const free = this.opts.concurrency - this.inFlight;
    if (free <= 0) return;
    let claimed;
    try {
      claimed = await this.store.claimDue(free, this.opts.leaseMs);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'claiming webhook deliveries failed; will retry');
      return;
    }
    for (const d of claimed) {
      this.inFlight++;
      const p = this.processor
        .process(d)
        .catch((err) => this.log.error({ err, delivery: d.id }, 'webhook delivery attempt failed unexpectedly'))
        .finally(() => {
          this.inFlight--;
          this.active.delete(p);
          if (this.backlog) this.kick();
        });
      this.active.add(p);
    }
    this.backlog = claimed.length === free;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await Promise.allSettled([...this.active]);
  }
}
