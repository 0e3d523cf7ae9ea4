import { LRUCache } from 'lru-cache';
import type { ChangeFeed } from '../db/change-feed.ts';

declare module '../context.ts' {
  interface Services {
    /** Trusted-document manifests held in process, kept like `authCache` and absent where it is. */
    trustedDocuments?: TrustedDocumentMemory;
  }
}

/** Taken before reading from the database; `keep` stores the answer only if nothing changed meanwhile. */
export interface ManifestTicket {
  readonly epoch: number;
  readonly session: number;
  readonly at: number;
}

/**
 * A replica's memory of its projects' trusted documents: each project's enforcement flag, and the
 * manifest texts by hash (or their absence). It lets the GraphQL gate (and a cached GraphQL answer of
 * an enforcing project) go without a statement, and stays true the way the authentication cache does
 * (src/auth/auth-cache.ts):
 * - every commit that changes a manifest's flag or documents sends `t:<project>` on the change feed
 *   (migration 20261127001000), on whichever replica or process (CLI, plain SQL) it was made; the
 *   project's entries are dropped when it arrives;
 * - nothing is answered from memory while the feed is down, and an answer is kept only if its read
 *   began and ended within one feed session with no notification for its project in between;
 * - the replica that replaces a manifest forgets it before answering (`forgetProject`);
 * - no entry is trusted longer than `ttlMs` (AUTH_CACHE_MS): the bound for a connection that died
 *   without anyone noticing.
 */
export class TrustedDocumentMemory {
  /** `at`: when the read that filled the entry began. */
  private readonly flags: LRUCache<number, { enforced: boolean; at: number }>;
  /** By `project|hash`; a project's keys are found through `hashesByProject` when it is forgotten. */
  private readonly texts: LRUCache<string, { text: string | null; at: number }>;
  private readonly hashesByProject = new Map<number, Set<string>>();
  /** Epoch at which each project was last forgotten. */
  private readonly forgottenAt = new Map<number, number>();
  private epoch = 0;
  private flushedAt = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly feed: Pick<ChangeFeed, 'live' | 'session' | 'subscribe'>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.flags = new LRUCache({ max: 10_000 });
    this.texts = new LRUCache({
      max: 20_000,
      dispose: (_value, key) => {
        const projectId = Number(key.slice(0, key.indexOf('|')));
        const keys = this.hashesByProject.get(projectId);
        keys?.delete(key);
        if (keys?.size === 0) this.hashesByProject.delete(projectId);
      },
    });
    this.unsubscribe = feed.subscribe((change) => {
      if (change.kind === 'all') this.forgetAll();
      // A project's row or tokens changed: its manifest did not (a deleted project's rows go with
      // their own notification).
      else if (change.kind === 'trusted-documents') this.forgetProject(change.projectId);
    });
  }

  ticket(): ManifestTicket {
    return { epoch: this.epoch, session: this.feed.session, at: this.now() };
  }

  enforced(projectId: number): boolean | undefined {
    return this.fresh(this.flags.get(projectId))?.enforced;
  }

  /** The text for `hash` (lower-case hex): a string, null when the manifest has none, undefined when not known. */
  text(projectId: number, hash: string): string | null | undefined {
    return this.fresh(this.texts.get(`${projectId}|${hash}`))?.text;
  }

  keepEnforced(ticket: ManifestTicket, projectId: number, enforced: boolean): void {
    if (this.current(ticket, projectId)) this.flags.set(projectId, { enforced, at: ticket.at });
  }

  keepText(ticket: ManifestTicket, projectId: number, hash: string, text: string | null): void {
    if (!this.current(ticket, projectId)) return;
    const key = `${projectId}|${hash}`;
    this.texts.set(key, { text, at: ticket.at });
    let keys = this.hashesByProject.get(projectId);
    if (!keys) this.hashesByProject.set(projectId, (keys = new Set()));
    keys.add(key);
  }

  forgetProject(projectId: number): void {
    this.epoch++;
    this.forgottenAt.set(projectId, this.epoch);
    this.flags.delete(projectId);
    const keys = this.hashesByProject.get(projectId);
    if (!keys) return;
    for (const key of [...keys]) this.texts.delete(key);
    this.hashesByProject.delete(projectId);
  }

  forgetAll(): void {
    this.epoch++;
    this.flushedAt = this.epoch;
    this.forgottenAt.clear();
    this.flags.clear();
    this.texts.clear();
    this.hashesByProject.clear();
  }

  close(): void {
    this.unsubscribe();
    this.forgetAll();
  }

  /** An entry still to be trusted: the feed is live and it is younger than the bound (a stale one is left to the LRU). */
  private fresh<E extends { at: number }>(entry: E | undefined): E | undefined {
    return entry && this.feed.live && this.now() - entry.at <= this.ttlMs ? entry : undefined;
  }

  /** Whether an answer read under `ticket` may be kept: no change of its project can have been missed. */
  private current(ticket: ManifestTicket, projectId: number): boolean {
    if (!this.feed.live || ticket.session !== this.feed.session) return false;
    return this.flushedAt <= ticket.epoch && (this.forgottenAt.get(projectId) ?? 0) <= ticket.epoch;
  }
}
