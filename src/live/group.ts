import type { Logger } from '../logger.ts';
import type { LiveChange } from './stream.ts';
import type { LiveFilter, LiveSubscription, Rendition } from './subscription.ts';

/**
 * Renders one change for a group, or null when the group gets nothing of it. Made by the surface
 * (src/graphql/subscriptions/) per member, closing over that member's own context: the group runs its
 * oldest live member's, so a member that ends (revoked, gone) never renders for the others.
 */
export type LiveRenderer<C extends LiveChange = LiveChange> = (change: C) => Promise<Rendition | null>;

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
  }

  /** True when the group is left empty. */
  remove(sub: LiveSubscription): boolean {
    this.members.delete(sub);
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

  private deliver(r: Rendition): void {
    if (r.shows) this.shown.set(r.shows, r.id);
    let last: number | undefined;
    if (r.leaves) {
      last = this.shown.get(r.leaves);
      r.lastShown = last;
      this.shown.delete(r.leaves);
      if (!r.toAll && last === undefined) return;
    }
    // A copy: a member that falls behind is ended (and removed) while this loop runs.
    for (const m of [...this.members.keys()]) {
      if (r.id <= m.since) continue;
      if (r.leaves && !r.toAll && !(last! > m.shownAfter)) continue;
      m.push(r);
    }
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
