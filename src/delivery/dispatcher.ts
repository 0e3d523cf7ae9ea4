import type { Logger } from '../logger.ts';
import { listenOn, type PgListener } from '../db/listener.ts';
import type { DeliveryStore } from './store.ts';
import { SerialRunner } from '../serial-runner.ts';
import { OUTBOX_CHANNEL } from '../events/port.ts';

const BATCH = 500;

/**
 * Moves committed outbox rows into deliveries and hands their ids on (queue or in-process runner).
 * Wakes on NOTIFY (sent by the writing transaction, so it arrives at commit), on an in-process nudge
 * (PGlite, where there is no second connection to LISTEN on) and on a fallback poll, so a lost
 * notification only costs one poll interval. Runs are serialised per process; several processes
 * may run at once (SKIP LOCKED splits the rows between them).
 */
export class OutboxDispatcher {
  private closed = false;
  private timer?: NodeJS.Timeout;
  private listener?: PgListener;
  private readonly runner = new SerialRunner(() => this.drain(), () => this.closed);

  constructor(
    private readonly store: DeliveryStore,
    private readonly onDispatched: (deliveryIds: string[]) => Promise<void>,
    private readonly pollIntervalMs: number,
    private readonly log: Logger,
    private readonly listenUrl?: string,
  ) {}

  async start(): Promise<void> {
    if (this.listenUrl) {
      // Waking when LISTEN is (again) in place picks up anything committed while no one listened.
      this.listener = listenOn(this.listenUrl, OUTBOX_CHANNEL, this.log, { notify: () => this.wake(), live: () => this.wake() }, { minRetryMs: 500, maxRetryMs: 5000, applicationName: 'cms outbox dispatcher' });
      await this.listener.ready;
    }
    this.timer = setInterval(() => this.wake(), this.pollIntervalMs);
    this.timer.unref();
    this.wake();
  }

  /** Runs a dispatch pass now, or right after the one in progress. */
  wake(): void {
    this.runner.wake();
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        const { events, deliveryIds } = await this.store.dispatchBatch(BATCH);
        if (deliveryIds.length) await this.onDispatched(deliveryIds);
        if (events < BATCH || this.closed) return;
      }
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'webhook dispatch failed; will retry');
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.runner.current;
    await this.listener?.close();
  }
}
