import type { ChangeFeed, ContentChange } from '../db/change-feed.ts';
import { raiseGenerations, type ContentStamped } from './content-stamps.ts';
import { laterLsnText } from '../db/lsn.ts';

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
 * - Every commit that could change an answer notifies (migration 20261123000000). A change of the
 *   project row or its tokens drops the project's entries. A content commit carries the generations
 *   it moved (migration 20261126070000): the project's entries are raised to them and kept, so a
 *   write costs the readers of its project no authentication statement; an answer being read while
 *   one arrives is raised too before it is kept (`pending`). A commit on any replica or by any
 *   process (worker, CLI, plain SQL) is seen within the notification's delay.
 * - Entries are served only while the feed is live, and only if the read that filled them began and
 *   ended within one feed session with no notification for the project in between (the epoch):
 *   a read that raced a commit can't store the answer from before it.
 * - Writes made through this process forget the project before their response goes out
 *   (`forgetProject`), so a client reading its own write never depends on the notification's timing.
 * - No entry is trusted longer than `ttlMs`: the bound for a connection that died without anyone noticing.
 */
export class AuthCache<V extends ContentStamped> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly keysByProject = new Map<number, Set<string>>();
  /** Epoch at which each project was last forgotten. */
  private readonly forgottenAt = new Map<number, number>();
  /**
   * Per project, the content changes heard since it was last forgotten, merged (the highest value of
   * each counter): what an answer read from the database before one of them committed is raised to.
   */
  private readonly heard = new Map<number, ContentChange>();
  /** Authentication reads in flight, by key: concurrent misses of one key share one statement. */
  private readonly flights = new Map<string, { epoch: number; promise: Promise<V | undefined> }>();
  private epoch = 0;
  private flushedAt = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly feed: Pick<ChangeFeed, 'live' | 'session' | 'subscribe'> & Partial<Pick<ChangeFeed, 'subscribeContent'>>,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    const off = feed.subscribe((change) => {
      if (change.kind === 'all') this.forgetAll();
      // Authentication also answers whether the project enforces trusted documents.
      else if (change.kind === 'project' || change.kind === 'trusted-documents') this.forgetProject(change.projectId);
    });
    const offContent = feed.subscribeContent?.((change) => this.contentChanged(change));
    this.unsubscribe = () => {
      off();
      offContent?.();
    };
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

  /**
   * Single flight for a miss: while one request reads `key`'s answer, the others wait for it instead
   * of sending the same statement (after a write, every connection's next request misses at once).
   * A request joins only a read that began after the last forget, so it never gets an answer older
   * than one it could have read itself when a change was already known; content heard meanwhile is
   * applied to the shared answer. The read's outcome (undefined: no such project) is each caller's to
   * judge; only `keep` answers are stored.
   */
  async read(key: string, load: () => Promise<V | undefined>, keep: (value: V) => boolean): Promise<V | undefined> {
    const flight = this.flights.get(key);
    if (flight && flight.epoch === this.epoch && this.feed.live) return flight.promise.then((v) => (v ? this.raised(v) : v));
    const ticket = this.ticket();
    const promise = load();
    const mine = { epoch: ticket.epoch, promise };
    this.flights.set(key, mine);
    try {
      const value = await promise;
      if (value && keep(value)) this.set(ticket, key, value.id, value);
      return value;
    } finally {
      if (this.flights.get(key) === mine) this.flights.delete(key);
    }
  }

  set(ticket: AuthTicket, key: string, projectId: number, value: V): void {
    if (!this.feed.live || ticket.session !== this.feed.session) return;
    if (this.flushedAt > ticket.epoch || (this.forgottenAt.get(projectId) ?? 0) > ticket.epoch) return;
    value = this.raised(value);
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

  /** A content commit: the project's entries are raised to its generations, and kept. */
  contentChanged(change: ContentChange): void {
    const before = this.heard.get(change.projectId);
    if (!before && this.heard.size >= this.maxEntries) {
      // Only there to bound memory: past it, forgetting everything is always safe.
      this.forgetAll();
    }
    this.heard.set(change.projectId, mergeChanges(before, change));
    const keys = this.keysByProject.get(change.projectId);
    if (!keys) return;
    for (const key of keys) {
      const entry = this.entries.get(key);
      if (!entry) continue;
      // A new object, never a change to the old one: requests in flight keep the view they began with.
      if (entry) entry.value = raiseGenerations(entry.value, change);
    }
  }

  forgetProject(projectId: number): void {
    this.epoch++;
    this.forgottenAt.set(projectId, this.epoch);
    this.heard.delete(projectId);
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
    this.heard.clear();
    this.entries.clear();
    this.keysByProject.clear();
  }

  close(): void {
    this.unsubscribe();
    this.forgetAll();
  }

  /** `value` with the content heard for its project applied. */
  private raised(value: V): V {
    const heard = this.heard.get(value.id);
    return heard ? raiseGenerations(value, heard) : value;
  }

  private remove(key: string, projectId: number): void {
    this.entries.delete(key);
    const keys = this.keysByProject.get(projectId);
    keys?.delete(key);
    if (keys?.size === 0) this.keysByProject.delete(projectId);
  }
}

function mergeChanges(a: ContentChange | undefined, b: ContentChange): ContentChange {
  if (!a) return b;
  const generation = a.generation === undefined || (b.generation !== undefined && b.generation > a.generation) ? (b.generation ?? a.generation) : a.generation;
  const byId = new Map<number, [number, number, number]>();
  for (const c of [...(a.collections ?? []), ...(b.collections ?? [])]) {
    const seen = byId.get(c[0]);
    byId.set(c[0], seen ? [c[0], Math.max(seen[1], c[1]), Math.max(seen[2], c[2])] : c);
  }
  const lsn = laterLsnText(a.lsn, b.lsn);
  return { projectId: b.projectId, generation, collections: [...byId.values()], ...(lsn === undefined ? {} : { lsn }) };
}
