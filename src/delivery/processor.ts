import DataLoader from 'dataloader';
import type { Logger } from '../logger.ts';
import type { WebhookHttpSender, SendResult } from './http-sender.ts';
import { retryDelayMs, type WebhookOptions } from './options.ts';
import { buildRequest, sanitizeHeaders } from './signing.ts';
import type { ClaimedDelivery, CounterChange, DeliveryStore, FinishRecord } from './store.ts';

export type Outcome =
  | { result: 'delivered' | 'failed' | 'cancelled' | 'skipped' }
  | { result: 'retry'; at: Date };

/** Window in which concurrent claims / finishes are gathered into one statement. */
const BATCH_WINDOW_MS = 2;
const MAX_BATCH = 200;

/**
 * One delivery attempt, whoever schedules it (BullMQ worker or the in-process runner): sign, POST,
 * log, decide what happens next. Claims and results of concurrent attempts are batched into one
 * statement each: every attempt writes a log row, and one insert per row would cap throughput
 * (docs/webhooks.md, "Performance").
 */
export class DeliveryProcessor {
  private readonly claims: DataLoader<string, ClaimedDelivery | null>;
  private readonly finishes: DataLoader<{ record: FinishRecord; counter: CounterChange | null }, void>;

  constructor(
    private readonly store: DeliveryStore,
    private readonly sender: WebhookHttpSender,
    private readonly opts: WebhookOptions,
    private readonly log: Logger,
  ) {
    const batchScheduleFn = (cb: () => void) => setTimeout(cb, BATCH_WINDOW_MS);
    this.claims = new DataLoader(
      async (ids) => {
        const claimed = await this.store.claimByIds(ids, this.opts.leaseMs);
        const byId = new Map(claimed.map((c) => [c.id, c]));
        // One claim, one sender: should the same id appear twice in a batch, only the first gets it.
        return ids.map((id) => {
          const c = byId.get(id) ?? null;
          byId.delete(id);
          return c;
        });
      },
      { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn },
    );
    this.finishes = new DataLoader(
      async (items) => {
        await this.writeResults(items.map((i) => i.record), items.map((i) => i.counter));
        return items.map(() => undefined);
      },
      { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn },
    );
  }

  /** BullMQ path: the job only carries the delivery id; the database says whether it is still due. */
  async processById(id: string): Promise<Outcome> {
    const claimed = await this.claims.load(id);
    if (!claimed) return { result: 'skipped' };
    return this.process(claimed);
  }

  async process(d: ClaimedDelivery): Promise<Outcome> {
    if (d.status === 'cancelled') return { result: 'cancelled' };
    const attempt = d.attempts + 1;
    const started = new Date();
    const req = buildRequest({ deliveryId: d.id, event: d.event, stored: d.body, secret: d.secret, now: started });
    const res = await this.sender.send({
      url: d.url,
      body: req.body,
      headers: req.headers,
      timeoutMs: this.opts.timeoutMs,
      responseLimitBytes: this.opts.responseLogLimitBytes,
    });
    const ok = res.kind === 'response' && res.status >= 200 && res.status < 300;
    // A blocked URL stays blocked: retrying would only knock on the same internal address again.
    const retry = !ok && res.kind !== 'blocked' && !d.manual && attempt < this.opts.maxAttempts;
    const retryAt = retry ? new Date(Date.now() + retryDelayMs(this.opts, attempt)) : null;
    const nextStatus = ok ? 'delivered' : retry ? 'pending' : 'failed';

    const record: FinishRecord = {
      delivery_id: d.id,
      webhook_id: d.webhookId,
      attempt,
      action: d.event,
      url: d.url,
      status: logStatus(res),
      request: {
        method: 'POST',
        headers: sanitizeHeaders(req.headers),
        ...this.loggedBody(req.payload, req.body),
      },
      response: loggedResponse(res),
      duration_ms: Date.now() - started.getTime(),
      created_at: started.toISOString(),
      next_status: nextStatus,
      next_attempt_at: retryAt?.toISOString() ?? null,
    };
    // Admin sends (ping, redeliver) never move the auto-disable counter.
    let counter: CounterChange | null = null;
    if (!d.manual && ok && d.consecutiveFailures > 0) counter = { webhook_id: d.webhookId, reset: true, failures: 0 };
    if (!d.manual && nextStatus === 'failed') counter = { webhook_id: d.webhookId, reset: false, failures: 1 };

    await this.finishes.load({ record, counter });
    if (retryAt) return { result: 'retry', at: retryAt };
    return { result: ok ? 'delivered' : 'failed' };
  }

  private loggedBody(payload: unknown, body: Buffer): { body: unknown; body_truncated: boolean } {
    if (body.length <= this.opts.requestLogLimitBytes) return { body: payload, body_truncated: false };
    return { body: body.subarray(0, this.opts.requestLogLimitBytes).toString('utf8'), body_truncated: true };
  }

  /**
   * Writes a batch of results. A transient database error is retried a few times; if it persists
   * the deliveries stay claimed and are sent again once their lease runs out (at-least-once).
   */
  private async writeResults(records: FinishRecord[], counters: Array<CounterChange | null>): Promise<void> {
    await withRetries(() => this.store.finish(records), this.log, 'webhook results');
    const merged = mergeCounters(counters);
    if (merged.length === 0) return;
    try {
      const disabled = await withRetries(() => this.store.applyCounters(merged, this.opts.disableAfterFailures), this.log, 'webhook counters');
      if (disabled.length) this.log.warn({ webhooks: disabled }, 'webhooks disabled after consecutive failed deliveries');
    } catch (err) {
      // Counters are bookkeeping; the deliveries themselves are already recorded.
      this.log.error({ err }, 'could not update webhook failure counters');
    }
  }
}

/** Folds a batch's counter changes per webhook, in order (a success in the middle restarts the count). */
export function mergeCounters(changes: Array<CounterChange | null>): CounterChange[] {
  const per = new Map<number, CounterChange>();
  for (const c of changes) {
    if (!c) continue;
    const cur = per.get(c.webhook_id);
    if (c.reset) per.set(c.webhook_id, { webhook_id: c.webhook_id, reset: true, failures: c.failures });
    else if (cur) cur.failures += c.failures;
    else per.set(c.webhook_id, { ...c });
  }
  return [...per.values()];
}

function logStatus(res: SendResult): string {
  return res.kind === 'response' ? String(res.status) : res.kind;
}

function loggedResponse(res: SendResult): Record<string, unknown> {
  if (res.kind === 'response') return { status: res.status, body: res.body, body_truncated: res.bodyTruncated };
  return { status: null, body: null, body_truncated: false, error: res.message };
}

async function withRetries<T>(fn: () => Promise<T>, log: Logger, what: string): Promise<T> {
  const delays = [100, 500, 2000];
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= delays.length) throw err;
      log.warn({ err: (err as Error).message, attempt: i + 1 }, `writing ${what} failed; retrying`);
      await new Promise((r) => setTimeout(r, delays[i]));
    }
  }
}
