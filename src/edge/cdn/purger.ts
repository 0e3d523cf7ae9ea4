import type { Database } from '../../db/client.ts';
import type { ChangeFeed } from '../../db/change-feed.ts';
import type { LiveChange, OutboxChange } from '../../live/stream.ts';
import type { Logger } from '../../logger.ts';
import { randomUUID } from 'node:crypto';
import { assetTag, entryTag, listTag, projectTag } from './headers.ts';
import type { PurgeQueue } from './purge-queue.ts';

/** The content events that change what a published read shows (a draft save, `content.updated`, does not). */
const PUBLISHED_CHANGES = new Set(['content.published', 'content.unpublished', 'content.trashed', 'content.deleted', 'content.restored']);

/** The process's ordered stream of outbox changes (the live hub's, src/live/hub.ts). */
export interface OutboxChanges {
  /** Hands `consumer` every change released from now on, in outbox order; starts the stream. */
  follow(consumer: (changes: LiveChange[]) => void): Promise<void>;
  /** This process wrote to the outbox. */
  wake(): void;
}

export interface EdgePurgerOptions {
  database: Database;
  log: Logger;
  queue: PurgeQueue;
  changes: OutboxChanges;
  /**
   * The process's change feed, heard for project changes (on embedded PGlite, the owning process's:
   * src/db/embedded-notifications.ts). Absent only in a process that reaches an embedded database
   * through its owner, where the owner's purger sends them.
   */
  feed?: ChangeFeed;
}

/**
 * Sends the CDN purges of every committed change that alters a published answer (docs/foundation.md,
 * "Scaling out", "The CDN"). Every replica runs one, and each reads every change:
 * - entry changes (publish, unpublish, revert, trash, delete, restore, a release's entries) from the
 *   outbox, through the very stream live subscriptions read (the live hub's, src/live/stream.ts:
 *   strictly in id order, waiting behind a transaction that has not committed yet, so none is
 *   skipped), so a replica reads each outbox row once, woken by the hint every writer sends after its
 *   commit; each purges the entry's tag and its collection's listings;
 * - changes of a project's row (a collection or its fields, locales, settings: they move the schema
 *   revision or the row's time) from the process's change feed; they purge the project's tag.
 * A purge's job id is derived from the change (`o<outbox id>`, `p<project>.<revision>.<time>`), so
 * the replicas enqueue the same job and BullMQ keeps one: each purge is sent once, and sent as long
 * as one replica reads the change. Token changes notify the same channel; they leave the revision
 * and time as they were, so their id is the last purge's and nothing is sent.
 */
export class EdgePurger {
  private unsubscribe?: () => void;
  private readonly collectionUuids = new Map<number, string>();
  private closed = false;

  constructor(private readonly opts: EdgePurgerOptions) {}

  async start(): Promise<void> {
    await this.opts.changes.follow((changes) => void this.purgeChanges(changes));
    this.unsubscribe = this.opts.feed?.subscribe((change) => {
      if (change.kind === 'project') void this.purgeProject(change.projectId);
    });
  }

  /** Reads the outbox now (this process's own writes: embedded PGlite has no LISTEN). */
  outboxWritten(): void {
    this.opts.changes.wake();
  }

  private async purgeChanges(changes: LiveChange[]): Promise<void> {
    // A release's own events carry no entry: its entries' content events, in the same commit, purge them.
    const relevant = changes.filter((c): c is OutboxChange => c.collectionId !== null && PUBLISHED_CHANGES.has(c.event));
    if (!relevant.length || this.closed) return;
    try {
      const uuids = await this.collectionUuidsOf(relevant.map((c) => c.collectionId));
      await Promise.all(
        relevant.map((c) => {
          const collection = uuids.get(c.collectionId);
          return this.opts.queue.enqueue(`o${c.id}`, collection ? [entryTag(c.entryUuid), listTag(collection)] : [entryTag(c.entryUuid)]);
        }),
      );
    } catch (err) {
      this.opts.log.error({ err: (err as Error).message, changes: relevant.length }, 'could not enqueue CDN purges');
    }
  }

  /** Collection uuids never change: each is read once. A collection deleted since has none (its listings went with the project purge). */
  private async collectionUuidsOf(ids: number[]): Promise<Map<number, string>> {
    const missing = [...new Set(ids)].filter((id) => !this.collectionUuids.has(id));
    if (missing.length) {
      const rows = await this.opts.database.query<{ id: number; uuid: string }>('SELECT id, uuid::text AS uuid FROM collections WHERE id = ANY($1::int[])', [missing]);
      for (const r of rows) this.collectionUuids.set(r.id, r.uuid);
    }
    return this.collectionUuids;
  }

  private async purgeProject(projectId: number): Promise<void> {
    try {
      const [row] = await this.opts.database.query<{ uuid: string; schema_revision: number; at: string }>(
        `SELECT uuid::text AS uuid, schema_revision, (extract(epoch FROM updated_at) * 1000)::bigint::text AS at FROM projects WHERE id = $1`,
        [projectId],
      );
      if (!row || this.closed) return;
      await this.opts.queue.enqueue(`p${projectId}.${row.schema_revision}.${row.at}`, [projectTag(row.uuid)]);
    } catch (err) {
      this.opts.log.error({ err: (err as Error).message, project: projectId }, 'could not enqueue a CDN purge of a project');
    }
  }

  /**
   * Purges the answers showing these assets (`Services.assetsChanged`): told by the process that
   * committed the change, once, since asset changes leave no outbox event for the replicas to read.
   * A purge lost with that process leaves those answers until EDGE_MAX_AGE.
   */
  assetsChanged(uuids: string[]): void {
    if (!uuids.length || this.closed) return;
    const tags = [...new Set(uuids.map((u) => assetTag(u.toLowerCase())))];
    this.opts.queue.enqueue(`a${randomUUID()}`, tags).catch((err: unknown) => {
      this.opts.log.error({ err: (err as Error).message, assets: tags.length }, 'could not enqueue a CDN purge of assets');
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe?.();
    await this.opts.queue.close();
  }
}
