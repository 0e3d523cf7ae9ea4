import type { ChangeFeed } from '../db/change-feed.ts';

/** Taken before reading from the database; `set` keeps the answer only if nothing changed meanwhile. */
export interface AuthTicket {
  readonly epoch: number;
  readonly session: number;
  readonly at: number;
}

interface Entry<V> {
  value: V;
  projectId: number;
  at: number;
}

/**
 * Successful authentications (project row, token, content generations) held in process, so a request
 * whose answer is cached anyway costs no database round trip at all (BENCHMARKS.md, "REST get").
 *
 * What keeps them true:
 * - Every commit that could change an answer notifies (migration 20261123000000); the feed's
 *   notification drops the project's entries. A commit on any replica or by any process (worker,
 *   CLI, plain SQL) is seen within the notification's delay.
 * - Entries are served only while the feed is live, and only if the read that filled them began and
 *   ended within one feed session with no notification for the project in between (the epoch):
 *   a read that raced a commit can't store the answer from before it.
 * - Writes made through this process forget the project before their response goes out
 *   (`forgetProject`), so a client reading its own write never depends on the notification's timing.
 * - No entry is trusted longer than `ttlMs`: the bound for a connection that died without anyone noticing.
 */
export class AuthCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly keysByProject = new Map<number, Set<string>>();
  /** Epoch at which each project was last forgotten. */
  private readonly forgottenAt = new Map<number, number>();
  private epoch = 0;
  private flushedAt = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly feed: Pick<ChangeFeed, 'live' | 'session' | 'subscribe'>,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    this.unsubscribe = feed.subscribe((change) => (change.kind === 'all' ? this.forgetAll() : this.forgetProject(change.projectId)));
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    if (!this.feed.live) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.at > this.ttlMs) {
      this.remove(key, entry.projectId);
      return undefined;
    }
    return entry.value;
  }

  ticket(): AuthTicket {
    return { epoch: this.epoch, session: this.feed.session, at: this.now() };
  }

  set(ticket: AuthTicket, key: string, projectId: number, value: V): void {
    if (!this.feed.live || ticket.session !== this.feed.session) return;
    if (this.flushedAt > ticket.epoch || (this.forgottenAt.get(projectId) ?? 0) > ticket.epoch) return;
    if (this.entries.has(key)) this.remove(key, projectId);
    else if (this.entries.size >= this.maxEntries) {
      // Oldest first (Map keeps insertion order): enough for a bound that is only there for safety.
      const [oldestKey, oldest] = this.entries.entries().next().value as [string, Entry<V>];
      this.remove(oldestKey, oldest.projectId);
    }
    this.entries.set(key, { value, projectId, at: ticket.at });
    let keys = this.keysByProject.get(projectId);
    if (!keys) this.keysByProject.set(projectId, (keys = new Set()));
    keys.add(key);
  }

  forgetProject(projectId: number): void {
    this.epoch++;
    this.forgottenAt.set(projectId, this.epoch);
    const keys = this.keysByProject.get(projectId);
    if (!keys) return;
    for (const key of keys) this.entries.delete(key);
    this.keysByProject.delete(projectId);
  }

  forgetAll(): void {
    this.epoch++;
    this.flushedAt = this.epoch;
    // flushedAt now covers every project: the per-project marks would only grow.
    this.forgottenAt.clear();
    this.entries.clear();
    this.keysByProject.clear();
  }

  close(): void {
    this.unsubscribe();
    this.forgetAll();
  }

  private remove(key: string, projectId: number): void {
    this.entries.delete(key);
    const keys = this.keysByProject.get(projectId);
    keys?.delete(key);
    if (keys?.size === 0) this.keysByProject.delete(projectId);
  }
}
