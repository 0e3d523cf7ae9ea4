import type { Logger } from '../logger.ts';
import type { LiveChange } from './stream.ts';
import type { LiveBatch, LiveFilter, LiveSubscription, Rendition } from './subscription.ts';
import { stage, stagesOn } from './stages.ts';

/**
 * Renders one change for a group, or null when the group gets nothing of it. Made by the surface
 * (src/graphql/subscriptions/) per member, closing over that member's own context: the group runs its
 * oldest live member's, so a member that ends (revoked, gone) never renders for the others.
 */
export type LiveRenderer<C extends LiveChange = LiveChange> = (change: C) => Promise<Rendition | null>;

/**
 * Groups with renditions waiting for this turn's write. One callback for all of them once the
 * promise jobs of the current callback have run, i.e. after every rendition one statement's answer
 * resolved was delivered: a pass of the change stream that released several changes hands each
 * member all of them in one write. `process.nextTick` rather than `setImmediate`: the check phase
 * comes after every other I/O callback of the loop's poll (REST requests, statements' answers),
 * and the fan-out writes are what every subscriber waits for.
 */
let turnGroups: LiveGroup[] = [];

function scheduleTurn(group: LiveGroup): void {
  if (turnGroups.length === 0) process.nextTick(flushTurns);
  turnGroups.push(group);
}

function flushTurns(): void {
  const groups = turnGroups;
  turnGroups = [];
  const now = Date.now();
  for (const g of groups) {
    const began = stagesOn ? Date.now() : 0;
    const ids = stagesOn ? g.turnIds() : [];
    g.flushTurn(now);
    if (stagesOn) stage({ k: 'flush', n: g.size, ids, sched: g.turnAt, began, done: Date.now() });
  }
}

/** How long a rendition stays shared after it was made, for members resuming over the same changes. */
const RECENT_MS = 15_000;

/**
 * The subscribers of one replica whose events are identical by construction: the surface's key
 * covers project, collection, schema revision, the token's abilities (everything a resolver may look
 * at) and the operation (document, variables, operation name, hence state, `where` and events). Each
 * change is rendered once for the group, in parallel with the next ones, and delivered in outbox order
 * to every member as the same object: the cost of a change grows with the number of groups, not of
 * subscribers.
 */
export class LiveGroup {
  /** Members and their renderers, oldest first (a Map keeps insertion order). */
  private readonly members = new Map<LiveSubscription, LiveRenderer>();
  /** Entry (`uuid|locale`) → the last outbox id at which the group was shown it matching. */
  private readonly shown = new Map<string, number>();
  private readonly recent = new Map<number, { at: number; rendition: Promise<Rendition | null> }>();
  private chain: Promise<void> = Promise.resolve();
  /** Renditions delivered this turn of the event loop, written together by `flushTurn`. */
  private turn: Array<{ r: Rendition; last: number | undefined }> = [];
  /** `members` as an array for `flushTurn`; dropped whenever they change. */
  private snapshot?: LiveSubscription[];

  constructor(
    readonly key: string,
    readonly filter: LiveFilter,
    private readonly log: Logger,
  ) {}

  get size(): number {
    return this.members.size;
  }

  subscribers(): IterableIterator<LiveSubscription> {
    return this.members.keys();
  }

  add(sub: LiveSubscription, renderer: LiveRenderer): void {
    this.members.set(sub, renderer);
    this.snapshot = undefined;
  }

  /** True when the group is left empty. */
  remove(sub: LiveSubscription): boolean {
    this.members.delete(sub);
    this.snapshot = undefined;
    return this.members.size === 0;
  }

  wants(change: LiveChange): boolean {
    return !this.filter.events || this.filter.events.has(change.event);
  }

  /** A live change: rendered now, delivered after the ones offered before it. */
  offer(change: LiveChange): void {
    const rendering = this.render(change);
    this.chain = this.chain
      .then(() => rendering)
      .then((r) => {
        if (stagesOn) stage({ k: 'r', id: change.id, at: Date.now() });
        if (r) this.deliver(r);
      })
      .catch((err: unknown) => this.fail(err));
  }

  /** One change's rendition for this group, shared with every caller within RECENT_MS. */
  render(change: LiveChange): Promise<Rendition | null> {
    const now = Date.now();
    for (const [id, r] of this.recent) {
      if (now - r.at < RECENT_MS) break;
      this.recent.delete(id);
    }
    const hit = this.recent.get(change.id);
    if (hit) return hit.rendition;
    const renderer = this.members.values().next().value;
    const rendition = renderer ? renderer(change) : Promise.resolve(null);
    this.recent.set(change.id, { at: now, rendition });
    return rendition;
  }

  /** Resolves once every change offered so far was delivered. */
  settled(): Promise<void> {
    return this.chain;
  }

  /**
   * Notes what a rendition changes of the group's state (which entries it was shown) now, in outbox
   * order, and queues it for this turn's write (`flushTurn`).
   */
  private deliver(r: Rendition): void {
    if (r.shows) this.shown.set(r.shows, r.id);
    let last: number | undefined;
    if (r.leaves) {
      last = this.shown.get(r.leaves);
      r.lastShown = last;
      this.shown.delete(r.leaves);
      if (!r.toAll && last === undefined) return;
    }
    if (this.turn.length === 0) {
      if (stagesOn) this.turnAt = Date.now();
      scheduleTurn(this);
    }
    this.turn.push({ r, last });
  }

  /**
   * Hands this turn's renditions to the members. A member that takes every one of them (it joined
   * before the first, and none is a leave meant only for some) is handed them as one batch, the same
   * object for all: the transport encodes it once and writes the same bytes to every connection, one
   * write per member per turn however many changes the turn carried. Others (joined or resumed
   * meanwhile, leaves) are handed each rendition that is theirs, as before.
   */
  flushTurn(now: number): void {
    const turn = this.turn;
    if (turn.length === 0) return;
    this.turn = [];
    const renditions = turn.map((t) => t.r);
    const batch: LiveBatch = { renditions, lastId: renditions[renditions.length - 1].id };
    const firstId = renditions[0].id;
    const selective = turn.some((t) => t.r.leaves !== undefined && !t.r.toAll);
    // A snapshot: a member that falls behind is ended (and removed) while this loop runs.
    for (const m of this.list()) {
      if (!selective && m.since < firstId) {
        m.pushBatch(batch, now);
        continue;
      }
      for (const { r, last } of turn) {
        if (r.id <= m.since) continue;
        if (r.leaves && !r.toAll && !(last! > m.shownAfter)) continue;
        m.push(r);
      }
    }
  }

  /** When this turn's first rendition was delivered (LIVE_STAGE_LOG). */
  turnAt = 0;

  /** The ids waiting for this turn's write (LIVE_STAGE_LOG). */
  turnIds(): number[] {
    return this.turn.map((t) => t.r.id);
  }

  /** The members as an array, rebuilt only when they change (not copied per turn). */
  private list(): LiveSubscription[] {
    return (this.snapshot ??= [...this.members.keys()]);
  }

  /**
   * A change could not be rendered (the database failed): the members cannot be shown it, so they
   * are told to refetch rather than silently miss it.
   */
  private fail(err: unknown): void {
    this.log.warn({ err: (err as Error).message }, 'live change could not be rendered; subscribers reset');
    for (const m of [...this.members.keys()]) m.end({ kind: 'reset', reason: 'The server could not read a change; refetch and subscribe again.' });
  }
}
