/** Why a subscription ended, when the server ended it. */
export type LiveEnd =
  /** The client must refetch: it resumed from past the retention window, or fell too far behind. */
  | { kind: 'reset'; reason: string }
  /** Its token was revoked or lost `read`, or the project is gone. */
  | { kind: 'error'; code: 'FORBIDDEN' | 'UNAUTHENTICATED'; message: string }
  /**
   * Nothing was delivered for LIVE_IDLE_TIMEOUT_MS, the server is shutting down, or the project's
   * content model changed (fields added, hidden, removed: the subscription's document and visibility
   * must be checked again): reconnect with Last-Event-ID, nothing is missed.
   */
  | { kind: 'closed'; reason: 'idle' | 'shutdown' | 'schema' };

export interface LiveFilter {
  projectId: number;
  /** The collection whose content events it follows; null: the project's release events. */
  collectionId: number | null;
  /** Only these events (outbox event names); all of its topic's when absent. */
  events?: ReadonlySet<string>;
}

/**
 * One change as a group of identical subscriptions receives it (src/live/group.ts): rendered once and
 * handed to every member as the same object, so each member costs a write, not an execution.
 */
export interface Rendition {
  /** The outbox id: the event id a client resumes from. */
  id: number;
  /** The result as the surface shapes it (a GraphQL ExecutionResult), for pull consumers. */
  value: unknown;
  /** `value` serialized once; its length is what a member's queue bound counts. */
  json: string;
  /** The transport's encoding of this event (an SSE frame), made once by the first member's writer. */
  encoded?: Buffer;
  /** The entry (`uuid|locale`) matches the group's filter after this change. */
  shows?: string;
  /** The entry no longer matches: only members that were shown it get this, unless `toAll`. */
  leaves?: string;
  toAll?: boolean;
  /** Set when a leave was delivered live: the id at which the group last showed the entry before. */
  lastShown?: number;
}

/**
 * The renditions one turn of the event loop hands every member of a group (src/live/group.ts), in
 * outbox order: one object for all of them, so the transport encodes it once (`encoded`) and writes
 * the same bytes to each member.
 */
export interface LiveBatch {
  renditions: Rendition[];
  /** The id of the last rendition. */
  lastId: number;
  /** The transport's encoding of all of them, made once by the first member's writer. */
  encoded?: Buffer;
}

export interface LiveQueueLimits {
  /** Renditions queued for a member that does not read. */
  maxQueue: number;
  /** Bytes (of `json`) queued for a member that does not read. */
  maxQueueBytes: number;
}

/**
 * Where a member's events go when they are pushed (the distinct-connections SSE writer): `write`
 * answers false when the transport buffers enough, and the transport calls `drained()` on the
 * subscription when it takes more.
 */
export interface LiveSink {
  write(r: Rendition): boolean;
  /** Every rendition of the batch, in order (as `write` of each, in one go). */
  writeBatch(batch: LiveBatch): boolean;
  end(): void;
}

const FELL_BEHIND = 'The subscriber fell too far behind; refetch and subscribe again.';

/**
 * One subscriber: a bounded queue of renditions in outbox order, either pushed to a sink or pulled as
 * an async iterator (the single-connection mode, where graphql-sse reads). A member that does not
 * keep up is ended with `reset` once its queue passes either bound, instead of growing the heap.
 */
export class LiveSubscription implements AsyncIterable<Rendition> {
  ended?: LiveEnd;
  /** The outbox id of the last rendition handed to the client. */
  lastDelivered?: number;
  lastActivity = Date.now();
  /**
   * For leave events (`Rendition.leaves`): the member was shown an entry iff the group showed it after
   * this id. A resumed member starts at 0: it is taken to have seen what the group showed before.
   */
  shownAfter = 0;
  /** The member receives live renditions of ids above this (the stream's cursor when it joined, or its resume point). */
  since = 0;
  /** The project's schema revision the subscription was validated and shaped under. */
  schemaRevision = 0;
  /** The highest id pushed so far: ids only go up, so one at or below it was given already. */
  private lastPushed = 0;
  private readonly queue: Rendition[] = [];
  private queuedBytes = 0;
  private waiting?: (r: IteratorResult<Rendition>) => void;
  private sink?: LiveSink;
  private blocked = false;
  private done = false;
  /** Renditions pushed while the resume backlog is being rendered, delivered after it. */
  private held?: Rendition[];

  constructor(
    readonly filter: LiveFilter,
    readonly tokenId: number | null,
    private readonly limits: LiveQueueLimits,
    private readonly onFinish: (s: LiveSubscription) => void,
  ) {}

  get isDone(): boolean {
    return this.done;
  }

  get isHeld(): boolean {
    return this.held !== undefined;
  }

  /** Holds live renditions until `replay` hands the backlog over (resume without loss or duplicates). */
  hold(): void {
    this.held = [];
  }

  /** The backlog covers every id up to `upTo`; what was held beyond it follows. */
  replay(backlog: Rendition[], upTo: number): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const r of backlog) this.push(r);
    for (const r of held) if (r.id > upTo) this.push(r);
  }

  /** Takes events pushed from now on (and those queued so far). */
  attach(sink: LiveSink): void {
    this.sink = sink;
    if (this.done) return sink.end();
    this.drained();
  }

  /** The sink takes more: queued renditions go out until it pushes back again. */
  drained(): void {
    this.blocked = false;
    const sink = this.sink;
    if (!sink) return;
    while (!this.blocked && this.queue.length) {
      const r = this.queue.shift()!;
      this.queuedBytes -= r.json.length;
      this.hand(r);
    }
  }

  /**
   * A group's batch for this turn: written as one when the member is writing straight to its sink
   * (the usual case), else pushed rendition by rendition (held for a resume, queued, pulled).
   */
  pushBatch(batch: LiveBatch, now: number): void {
    if (this.done) return;
    const sink = this.sink;
    if (sink && !this.blocked && !this.held && this.queue.length === 0 && batch.renditions[0].id > this.lastPushed) {
      this.lastPushed = batch.lastId;
      this.lastDelivered = batch.lastId;
      this.lastActivity = now;
      if (!sink.writeBatch(batch)) this.blocked = true;
      return;
    }
    for (const r of batch.renditions) this.push(r);
  }

  push(r: Rendition): void {
    if (this.done) return;
    if (this.held) {
      this.held.push(r);
      return;
    }
    // A resumed member may be handed a change both in its backlog and live (the group writes live
    // ones a turn after rendering them): the first one counts.
    if (r.id <= this.lastPushed) return;
    this.lastPushed = r.id;
    if (this.sink && !this.blocked) return this.hand(r);
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      this.delivered(r);
      w({ value: r, done: false });
      return;
    }
    // One event is always taken, however large: the bound is on falling behind, not on entry size.
    if (this.queue.length >= this.limits.maxQueue || (this.queue.length > 0 && this.queuedBytes + r.json.length > this.limits.maxQueueBytes)) {
      return this.end({ kind: 'reset', reason: FELL_BEHIND });
    }
    this.queue.push(r);
    this.queuedBytes += r.json.length;
  }

  private hand(r: Rendition): void {
    this.delivered(r);
    if (!this.sink!.write(r)) this.blocked = true;
  }

  private delivered(r: Rendition): void {
    this.lastDelivered = r.id;
    this.lastActivity = Date.now();
  }

  /** Ends it; without a reason when the client went away. */
  end(reason?: LiveEnd): void {
    if (this.done) return;
    this.ended ??= reason;
    this.done = true;
    this.held = undefined;
    // What was queued is dropped: the client is told to refetch (or its stream is going away).
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.onFinish(this);
    const w = this.waiting;
    this.waiting = undefined;
    w?.({ value: undefined, done: true });
    this.sink?.end();
  }

  [Symbol.asyncIterator](): AsyncIterator<Rendition> {
    return {
      next: () => {
        const r = this.queue.shift();
        if (r) {
          this.queuedBytes -= r.json.length;
          this.delivered(r);
          return Promise.resolve({ value: r, done: false });
        }
        if (this.done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.waiting = resolve));
      },
      return: () => {
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
