import type { ContentEventName } from '../webhooks/events.ts';
import type { OutboxChange } from './stream.ts';

/** Why a subscription ended, when the server ended it. */
export type LiveEnd =
  /** The client must refetch: it resumed from past the retention window, or fell too far behind. */
  | { kind: 'reset'; reason: string }
  /** Its token was revoked or lost `read`, or the project is gone. */
  | { kind: 'error'; code: 'FORBIDDEN' | 'UNAUTHENTICATED'; message: string }
  /** Nothing was delivered for LIVE_IDLE_TIMEOUT_MS, or the server is shutting down: reconnect with Last-Event-ID. */
  | { kind: 'closed'; reason: 'idle' | 'shutdown' };

export interface LiveFilter {
  projectId: number;
  collectionId: number;
  /** Only these events; all content events when absent. */
  events?: ReadonlySet<ContentEventName>;
}

/**
 * One subscriber's queue of committed changes, handed out in outbox order. The hub pushes, the GraphQL
 * subscription pulls (an async iterator); `end` finishes it with a reason the SSE writer reports.
 */
export class LiveSubscription implements AsyncIterable<OutboxChange> {
  ended?: LiveEnd;
  /** The outbox id of the change last handed to the client: the SSE `id:` of what it yields. */
  lastDelivered?: number;
  lastActivity = Date.now();
  private readonly queue: OutboxChange[] = [];
  private waiting?: (r: IteratorResult<OutboxChange>) => void;
  private done = false;
  /** Changes pushed while the resume backlog is being read, replayed after it. */
  private held?: OutboxChange[];

  constructor(
    readonly filter: LiveFilter,
    readonly tokenId: number | null,
    private readonly maxQueue: number,
    private readonly onFinish: (s: LiveSubscription) => void,
  ) {}

  matches(c: OutboxChange): boolean {
    return c.projectId === this.filter.projectId && c.collectionId === this.filter.collectionId && (!this.filter.events || this.filter.events.has(c.event));
  }

  /** Holds live changes until `replay` hands the backlog over (resume without loss or duplicates). */
  hold(): void {
    this.held = [];
  }

  replay(backlog: OutboxChange[]): void {
    const held = this.held ?? [];
    this.held = undefined;
    const seen = new Set(backlog.map((c) => c.id));
    for (const c of backlog) this.push(c);
    for (const c of held) if (!seen.has(c.id)) this.push(c);
  }

  push(change: OutboxChange): void {
    if (this.done) return;
    if (this.held) {
      this.held.push(change);
      return;
    }
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      this.lastActivity = Date.now();
      w({ value: change, done: false });
      return;
    }
    // A client that does not read (or reads slower than changes commit) is told to refetch instead of
    // holding an unbounded queue in this process.
    if (this.queue.length >= this.maxQueue) return this.end({ kind: 'reset', reason: 'The subscriber fell too far behind; refetch and subscribe again.' });
    this.queue.push(change);
  }

  end(reason: LiveEnd): void {
    if (this.done) return;
    this.ended ??= reason;
    this.finish();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.queue.length = 0;
    this.onFinish(this);
    const w = this.waiting;
    this.waiting = undefined;
    w?.({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<OutboxChange> {
    return {
      next: () => {
        const change = this.queue.shift();
        if (change) {
          this.lastActivity = Date.now();
          return Promise.resolve({ value: change, done: false });
        }
        if (this.done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.waiting = resolve));
      },
      return: () => {
        this.finish();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
