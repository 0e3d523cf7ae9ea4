import type { Database } from '../db/client.ts';
import { listenOn, type PgListener } from '../db/listener.ts';
import { listenForChanges, type ChangeFeed } from '../db/change-feed.ts';
import type { Logger } from '../logger.ts';
import { authorize, type Ctx } from '../context.ts';
import { AppError } from '../errors.ts';
import { holds } from '../abilities.ts';
import { OUTBOX_CHANNEL } from '../events/port.ts';
import { ChangeStream, type LiveChange, type OutboxChange, type ReleaseChange } from './stream.ts';
import { parseEventId, readBacklog, replayOf } from './resume.ts';
import { LiveSubscription, type LiveEnd, type LiveFilter } from './subscription.ts';
import { LiveGroup, type LiveRenderer } from './group.ts';
import { prefetchAfter } from './prefetch.ts';

/** Least time between two passes of the token re-check (the issue allows a second for a revocation to end subscriptions). */
const RECHECK_SPACING_MS = 250;

/** What a subscriber asks for: its filter, and the key of every subscriber whose events are identical to its own. */
export interface LiveShape extends LiveFilter {
  key: string;
}

export interface LiveLimits {
  /** Open subscriptions per replica. */
  maxSubscriptions: number;
  /** Open subscriptions per token, on each replica. */
  maxPerToken: number;
  /** Events queued for a subscriber that does not read before it is told to reset. */
  maxQueue: number;
  /** Bytes of events queued for a subscriber that does not read before it is told to reset. */
  maxQueueBytes: number;
  /** How far back (seconds) Last-Event-ID may point. */
  resumeWindowSeconds: number;
  /** Most missed changes a resume replays; more is a reset. */
  maxBacklog: number;
  /** A subscription that delivered nothing for this long is closed (the client reconnects with Last-Event-ID). */
  idleTimeoutMs: number;
  /** Fallback poll of the outbox (and of tokens without a change feed), for lost notifications and embedded PGlite. */
  pollMs: number;
  gapTimeoutMs: number;
}

export interface LiveHubOptions {
  database: Database;
  log: Logger;
  /** PostgreSQL URL for LISTEN; absent on embedded PGlite, which is polled. */
  listenUrl?: string;
  /**
   * The process's change feed (token and project changes; src/services.ts opens it on first use),
   * heard instead of opening another LISTEN connection. Without it the hub opens its own (with `listenUrl`).
   */
  feed?: () => ChangeFeed;
  /**
   * Opens the connections the live reads use (the stream's outbox reads and the changed entries'
   * reads; src/services.ts: a small pool of their own). Without it they share `database`'s pool.
   */
  reads?: () => Database;
  limits: LiveLimits;
}

/** Told of every change the stream releases, in outbox order (the CDN purger, src/edge/cdn/purger.ts). */
export type ChangeConsumer = (changes: LiveChange[]) => void;

interface TokenRow {
  id: number;
  project_id: number;
  abilities: string[];
  revoked_at: Date | null;
}

/**
 * Live content for one replica: the ordered change stream (src/live/stream.ts) fanned out to this
 * replica's subscribers. Every replica runs its own: writers on any replica NOTIFY `cms_webhook_outbox`
 * at commit (src/events/outbox.ts), so each hears of every commit and reads the rows from the shared
 * outbox. Started on the first subscription; nothing runs on a replica nobody subscribes to.
 *
 * Tokens: the database notifies `cms_changes` on every token change (migration 20261123000000); the
 * hub re-reads the tokens of the project's subscriptions and ends those revoked or without `read`.
 */
export class LiveHub {
  /** Topic (project:collection, or project:releases) → shape key → group. */
  private readonly byCollection = new Map<string, Map<string, LiveGroup>>();
  private readonly groupOf = new Map<LiveSubscription, LiveGroup>();
  /** Token id → its subscriptions on this replica (the per-token cap, and revocation by token). */
  private readonly byToken = new Map<number, Set<LiveSubscription>>();
  /** Projects whose tokens must be re-read ('all' after a lost notification), and whether a pass runs. */
  private recheck = new Set<number | 'all'>();
  private rechecking = false;
  private lastRecheck = 0;
  private count = 0;
  private stream?: ChangeStream;
  private starting?: Promise<void>;
  private outboxListener?: PgListener;
  private feed?: ChangeFeed;
  /** Whether `feed` was opened here (closed with the hub) rather than handed over. */
  private ownFeed = false;
  private readonly consumers = new Set<ChangeConsumer>();
  private timer?: NodeJS.Timeout;
  private closed = false;
  private ownReads?: Database;

  constructor(private readonly opts: LiveHubOptions) {}

  /**
   * What the live reads go through once the hub started: a pool of their own when the process has
   * one (`reads`), else the process's. Under writes the shared pool is busy with the writers'
   * transactions, and a live read queued behind them there waited longer than it ran (bench/live.ts:
   * at 100 writes/s the 10 connections were all taken and ~100 queries waited, so a pass's read took
   * 100-400 ms where the statement takes a few): every event waits for these reads, no write does.
   */
  get reads(): Database {
    return this.ownReads ?? this.opts.database;
  }

  get size(): number {
    return this.count;
  }

  /** Distinct subscription shapes held (tests, benchmarks). */
  get groups(): number {
    let n = 0;
    for (const g of this.byCollection.values()) n += g.size;
    return n;
  }

  /** Highest outbox id every subscriber on this replica has been offered (tests, benchmarks). */
  get cursor(): number {
    return this.stream?.cursor ?? 0;
  }

  private start(): Promise<void> {
    this.starting ??= (async () => {
      const { log, listenUrl, limits } = this.opts;
      this.ownReads ??= this.opts.reads?.();
      const reads = this.reads;
      const stream = new ChangeStream(reads, log, (changes) => this.fanOut(changes), {
        gapTimeoutMs: limits.gapTimeoutMs,
        // The subscribers' reads of the changed entries, sent with the outbox read rather than after it.
        beside: (after) => {
          if (this.count > 0) prefetchAfter(reads, after, log);
        },
      });
      await stream.start();
      this.stream = stream;
      if (listenUrl) {
        this.outboxListener = listenOn(listenUrl, OUTBOX_CHANNEL, log, { notify: () => stream.wake(), live: () => stream.wake() }, { minRetryMs: 100, maxRetryMs: 2000, applicationName: 'cms live stream' });
        await this.outboxListener.ready;
        this.feed = this.opts.feed?.();
        if (!this.feed) {
          this.feed = listenForChanges(listenUrl, log);
          this.ownFeed = true;
        }
        this.feed.subscribe((change) => {
          // A manifest change leaves every token as it was.
          if (change.kind !== 'trusted-documents') this.recheckTokens(change.kind === 'project' ? change.projectId : 'all');
        });
      }
      this.timer = setInterval(() => {
        stream.wake();
        this.closeIdle();
        // Without a live change feed, token changes are found by this poll instead.
        if (!this.feed?.live) this.recheckTokens('all');
      }, limits.pollMs);
      this.timer.unref();
    })();
    return this.starting;
  }

  /**
   * Hands `consumer` every change the stream releases from now on, beside the subscribers: another
   * reader of the outbox in this process (the CDN purger) reads it through this stream, so a replica
   * reads each outbox row once and holds one LISTEN connection for it. Starts the stream.
   */
  async follow(consumer: ChangeConsumer): Promise<void> {
    this.consumers.add(consumer);
    if (!this.closed) await this.start();
  }

  /** This process wrote to the outbox: read it now (embedded PGlite has no LISTEN to say so). */
  wake(): void {
    this.stream?.wake();
  }

  /**
   * A subscription to one collection's committed changes. Needs `read`. `render` turns a change into
   * what the subscriber receives; it runs once per change for every subscriber of the same
   * `shape.key`. `lastEventId` resumes after that outbox id: the missed changes come first (when the id
   * is inside the retention window), else the subscription starts with a reset.
   */
  subscribe(ctx: Ctx, shape: LiveShape & { collectionId: number }, render: LiveRenderer<OutboxChange>, lastEventId?: string): Promise<LiveSubscription> {
    return this.join(ctx, shape, (c) => (c.collectionId !== null ? render(c) : Promise.resolve(null)), lastEventId);
  }

  /**
   * A subscription to a project's release events (`release.published`, `.failed`, `.scheduled`): the
   * same stream, caps, resume and token checks as a collection's, over the topic of the project's
   * rows that name no collection. Needs `read`; who else may follow them is the caller's rule
   * (src/releases/operations/access.ts).
   */
  subscribeReleases(ctx: Ctx, shape: Omit<LiveShape, 'collectionId'>, render: LiveRenderer<ReleaseChange>, lastEventId?: string): Promise<LiveSubscription> {
    return this.join(ctx, { ...shape, collectionId: null }, (c) => (c.collectionId === null ? render(c) : Promise.resolve(null)), lastEventId);
  }

  private async join(ctx: Ctx, shape: LiveShape, render: LiveRenderer, lastEventId?: string): Promise<LiveSubscription> {
    authorize(ctx, 'read');
    const { limits } = this.opts;
    const tokenId = ctx.actor.kind === 'token' ? ctx.actor.tokenId : null;
    if (!this.closed) await this.start();
    // Checked and counted with no await in between, so concurrent subscribes cannot overshoot a cap.
    if (this.closed) throw new AppError('SERVICE_UNAVAILABLE', 'The server is shutting down.');
    if (this.count >= limits.maxSubscriptions) throw new AppError('RATE_LIMITED', `This server holds its maximum of ${limits.maxSubscriptions} subscriptions; try again later or another replica.`, { retryAfter: 5 });
    if (tokenId !== null && (this.byToken.get(tokenId)?.size ?? 0) >= limits.maxPerToken) {
      throw new AppError('RATE_LIMITED', `This token already holds ${limits.maxPerToken} subscriptions on this server (LIVE_MAX_PER_TOKEN).`, { retryAfter: 5 });
    }
    const resumeFrom = lastEventId === undefined ? undefined : parseEventId(lastEventId);
    const filter: LiveFilter = { projectId: shape.projectId, collectionId: shape.collectionId, events: shape.events };
    const sub = new LiveSubscription(filter, tokenId, limits, (s) => this.remove(s));
    sub.schemaRevision = ctx.project.schemaRevision;
    const cursor = this.stream!.cursor;
    sub.since = cursor;
    sub.shownAfter = cursor;
    const group = this.add(sub, shape.key, render);
    if (resumeFrom === undefined) return sub;
    if (resumeFrom === null) {
      sub.end({ kind: 'reset', reason: 'Last-Event-ID is not an event id of this server; refetch.' });
      return sub;
    }
    // Registered and held from here: live renditions of ids above the resume point are buffered,
    // everything up to the stream's cursor is read below, so nothing falls between the two and
    // nothing comes twice (the held ones the backlog also holds are dropped by id).
    sub.since = resumeFrom;
    sub.shownAfter = 0;
    sub.hold();
    try {
      const backlog = await readBacklog(this.reads, this.opts.limits, filter, resumeFrom, cursor, this.stream!.recent);
      if (backlog === 'reset') sub.end({ kind: 'reset', reason: `Last-Event-ID is older than the resume window (${limits.resumeWindowSeconds} s) or too far behind; refetch.` });
      else sub.replay(await replayOf(group, backlog, resumeFrom), cursor);
    } catch (err) {
      sub.end({ kind: 'closed', reason: 'shutdown' });
      throw err;
    }
    return sub;
  }

  /** A topic: one collection's content events, or (null) the project's release events. */
  private key = (projectId: number, collectionId: number | null) => `${projectId}:${collectionId ?? 'releases'}`;

  private add(sub: LiveSubscription, shapeKey: string, render: LiveRenderer): LiveGroup {
    const k = this.key(sub.filter.projectId, sub.filter.collectionId);
    let groups = this.byCollection.get(k);
    if (!groups) this.byCollection.set(k, (groups = new Map()));
    let group = groups.get(shapeKey);
    if (!group) groups.set(shapeKey, (group = new LiveGroup(shapeKey, sub.filter, this.opts.log)));
    group.add(sub, render);
    this.groupOf.set(sub, group);
    this.count++;
    if (sub.tokenId !== null) {
      let mine = this.byToken.get(sub.tokenId);
      if (!mine) this.byToken.set(sub.tokenId, (mine = new Set()));
      mine.add(sub);
    }
    return group;
  }

  private remove(sub: LiveSubscription): void {
    const group = this.groupOf.get(sub);
    if (!group) return;
    this.groupOf.delete(sub);
    if (group.remove(sub)) {
      const k = this.key(sub.filter.projectId, sub.filter.collectionId);
      const groups = this.byCollection.get(k);
      if (groups?.get(group.key) === group) groups.delete(group.key);
      if (groups?.size === 0) this.byCollection.delete(k);
    }
    this.count--;
    if (sub.tokenId !== null) {
      const mine = this.byToken.get(sub.tokenId);
      mine?.delete(sub);
      if (mine?.size === 0) this.byToken.delete(sub.tokenId);
    }
  }

  private fanOut(changes: LiveChange[]): void {
    for (const consumer of this.consumers) {
      try {
        consumer(changes);
      } catch (err) {
        this.opts.log.error({ err }, 'a reader of the live change stream failed');
      }
    }
    for (const c of changes) {
      const groups = this.byCollection.get(this.key(c.projectId, c.collectionId));
      if (!groups) continue;
      for (const group of groups.values()) if (group.wants(c)) group.offer(c);
    }
  }

  private closeIdle(): void {
    const cutoff = Date.now() - this.opts.limits.idleTimeoutMs;
    for (const sub of this.all()) if (sub.lastActivity < cutoff) sub.end({ kind: 'closed', reason: 'idle' });
  }

  private all(projectId?: number): LiveSubscription[] {
    const out: LiveSubscription[] = [];
    for (const sub of this.groupOf.keys()) if (projectId === undefined || sub.filter.projectId === projectId) out.push(sub);
    return out;
  }

  /**
   * Ends the subscriptions whose token is gone, revoked, moved or without `read`. Every committed
   * write of a project notifies it (its content generation moves), so passes are coalesced: one runs at
   * a time, and the notifications heard meanwhile make one more pass after it. Work per pass is per
   * token held, not per subscription.
   */
  private recheckTokens(scope: number | 'all'): void {
    this.recheck.add(scope);
    if (this.rechecking) return;
    this.rechecking = true;
    void (async () => {
      try {
        while (this.recheck.size && !this.closed) {
          // Spaced, not back to back: a burst of token or project changes (an import of tokens, a
          // script revoking many) asks for a pass per commit, two statements each. Content commits no
          // longer ask (their notifications go to subscribeContent, src/db/change-feed.ts), but before
          // they stopped, 100 passes a second under writes were a visible share of bench/live.ts's
          // work. A revocation is still seen within RECHECK_SPACING_MS plus a pass.
          const wait = this.lastRecheck + RECHECK_SPACING_MS - Date.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
          if (this.closed) break;
          this.lastRecheck = Date.now();
          const scopes = this.recheck;
          this.recheck = new Set();
          await this.recheckPass(scopes.has('all') ? undefined : (scopes as Set<number>));
        }
      } finally {
        this.rechecking = false;
      }
    })();
  }

  private async recheckPass(projects?: Set<number>): Promise<void> {
    const held = new Map<number, number>();
    for (const [tokenId, subs] of this.byToken) {
      const projectId = subs.values().next().value?.filter.projectId;
      if (projectId !== undefined && (!projects || projects.has(projectId))) held.set(tokenId, projectId);
    }
    if (held.size === 0) return;
    let rows: TokenRow[];
    let revisions: Array<{ id: number; schema_revision: number }>;
    try {
      [rows, revisions] = await Promise.all([
        this.opts.database.query<TokenRow>('SELECT id, project_id, abilities, revoked_at FROM api_tokens WHERE id = ANY($1::int[])', [[...held.keys()]]),
        this.opts.database.query<{ id: number; schema_revision: number }>('SELECT id, schema_revision FROM projects WHERE id = ANY($1::int[])', [[...new Set(held.values())]]),
      ]);
    } catch (err) {
      this.opts.log.warn({ err: (err as Error).message }, 'live token check failed; will retry');
      return;
    }
    // A changed content model: the subscription's document was validated, and its entries shaped,
    // under the old one (a field hidden since must not keep appearing). Closed, not reset: the client
    // reconnects with Last-Event-ID against the new schema and misses nothing.
    const revisionOf = new Map(revisions.map((r) => [r.id, r.schema_revision]));
    for (const subs of this.byToken.values()) {
      for (const sub of [...subs]) {
        const now = revisionOf.get(sub.filter.projectId);
        if (now !== undefined && now !== sub.schemaRevision) sub.end({ kind: 'closed', reason: 'schema' });
      }
    }
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const [tokenId, projectId] of held) {
      const t = byId.get(tokenId);
      let end: LiveEnd | undefined;
      if (!t || t.revoked_at || t.project_id !== projectId) end = { kind: 'error', code: 'UNAUTHENTICATED', message: 'The token was revoked.' };
      else if (!holds(t.abilities, 'read')) end = { kind: 'error', code: 'FORBIDDEN', message: 'Forbidden. This action requires the "read" or "*" ability.' };
      if (end) for (const sub of [...(this.byToken.get(tokenId) ?? [])]) sub.end(end);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    for (const sub of this.all()) sub.end({ kind: 'closed', reason: 'shutdown' });
    this.stream?.close();
    await this.outboxListener?.close();
    if (this.ownFeed) await this.feed?.close();
    await this.ownReads?.close();
  }
}
