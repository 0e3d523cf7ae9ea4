import { createServer, type Server } from 'node:http';

export interface Delivery {
  deliveryId: string;
  event: string;
  entryUuid?: string;
  /** performance.timeOrigin-based ms of the first arrival. */
  at: number;
  count: number;
}

/**
 * A local webhook receiver: answers 200 to every POST and records each body's `delivery_id`, so a
 * run can prove every event arrived exactly once and time commit → delivery.
 */
export class WebhookReceiver {
  readonly deliveries = new Map<string, Delivery>();
  duplicates = 0;
  received = 0;
  private server?: Server;
  private waiters: Array<() => void> = [];
  port = 0;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = performance.timeOrigin + performance.now();
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { delivery_id?: string; event?: string; entry_uuid?: string };
          if (body.delivery_id) {
            this.received++;
            const seen = this.deliveries.get(body.delivery_id);
            if (seen) {
              seen.count++;
              this.duplicates++;
            } else {
              this.deliveries.set(body.delivery_id, { deliveryId: body.delivery_id, event: body.event ?? '', entryUuid: body.entry_uuid, at, count: 1 });
            }
          }
        } catch {
          /* not JSON: still answer 200, the sender is not under test here */
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        for (const w of this.waiters.splice(0)) w();
      });
    });
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** Distinct deliveries that pass `filter` (all when none given). */
  count(filter?: (d: Delivery) => boolean): number {
    if (!filter) return this.deliveries.size;
    let n = 0;
    for (const d of this.deliveries.values()) if (filter(d)) n++;
    return n;
  }

  /** Resolves once `count` distinct deliveries (passing `filter`) arrived, or after `timeoutMs` (returns whether it got there). */
  async waitFor(count: number, timeoutMs: number, filter?: (d: Delivery) => boolean): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.count(filter) < count) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 500));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return true;
  }

  reset(): void {
    this.deliveries.clear();
    this.duplicates = 0;
    this.received = 0;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

export const nowMs = (): number => performance.timeOrigin + performance.now();
