import { Prisma, type Tx } from '../../db/client.ts';
import { type Actor, type Ctx, type EventSource, type Services } from '../../context.ts';
import { conflict, isAppError, notFound, type FieldErrors } from '../../errors.ts';
import { txCtx } from '../../entries/operations/entry.ts';
import { serializeEntries } from '../../entries/reads/serialize.ts';
import { passwordNamesSql } from '../../entries/store/snapshot.ts';
import { eventFactory } from '../../events/entry-events.ts';
import { emitContentEvents, emitReleaseEvent, type ContentEventInput } from '../../events/outbox.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import { RELEASE_INCLUDE, serializeRelease, type ReleaseView } from '../model.ts';
import { applyRelease, type AppliedItem } from './apply.ts';
import { lockRelease } from './find.ts';
import { authorizeReleases } from './access.ts';
import { cancelReleaseRuns } from '../../schedules/operations.ts';

/** A release of up to 500 entries publishes in one transaction; it may queue behind entry locks. */
const TX_OPTIONS = { maxWait: 15_000, timeout: 60_000 } as const;

/**
 * The publish: in one transaction, the release row is locked, its entries are published and
 * unpublished (./apply.ts), each item's resulting version is recorded, the release becomes
 * `published`, and the events are written: `content.published` / `content.unpublished` per entry that
 * changed, then `release.published`. All of it commits together or, on any failing item (422 with
 * `items.<n>.<field>` errors), none of it.
 */
async function publishInTransaction(ctx: Ctx, id: string): Promise<ReleaseView> {
  return ctx.db.$transaction(async (tx) => {
    const tctx = txCtx(ctx, tx);
    const release = await lockRelease(tx, tctx, id);
    if (release.status === 'published') throw conflict('The release is already published.');
    const applied = await applyRelease(tx, tctx, release, { strict: true });
    const now = new Date();
    const versions = applied.filter((a) => a.version !== null);
    if (versions.length) {
      await tx.$executeRaw`
        UPDATE release_items AS i SET version = v.version
        FROM jsonb_to_recordset(${JSON.stringify(versions.map((a) => ({ id: a.item.id, version: a.version })))}::jsonb) AS v(id int, version int)
        WHERE i.id = v.id`;
    }
    // `publish_at` stays: what the release was scheduled for is kept on record beside `published_at`.
    const row = await tx.release.update({
      where: { id: release.id },
      data: { status: 'published', publishedAt: now, errors: Prisma.DbNull, updatedAt: now },
      include: RELEASE_INCLUDE,
    });
    const view = serializeRelease(row);
    await emitContentEvents(tx, tctx, await contentEvents(tctx, applied), passwordNamesSql);
    await emitReleaseEvent(tx, tctx, 'release.published', view);
    return view;
  }, TX_OPTIONS);
}

/** Per changed entry, in item order: published entries carry their published view, unpublished ones their draft (as the single routes send them). */
async function contentEvents(ctx: Ctx, applied: AppliedItem[]): Promise<ContentEventInput[]> {
  const changed = applied.filter((a) => a.changed);
  const byCollection = new Map<number, { collection: CollectionSchema; published: AppliedItem[]; unpublished: AppliedItem[] }>();
  for (const a of changed) {
    const group = byCollection.get(a.collection.id) ?? { collection: a.collection, published: [], unpublished: [] };
    (a.item.action === 'publish' ? group.published : group.unpublished).push(a);
    byCollection.set(a.collection.id, group);
  }
  const resources = new Map<AppliedItem, unknown>();
  for (const { collection, published, unpublished } of byCollection.values()) {
    const pub = await serializeEntries(ctx, collection, published.map((a) => a.entry), { state: 'published' });
    const unpub = await serializeEntries(ctx, collection, unpublished.map((a) => a.entry), { state: 'draft' });
    published.forEach((a, i) => resources.set(a, pub[i]));
    unpublished.forEach((a, i) => resources.set(a, unpub[i]));
  }
  return changed.map((a) => eventFactory(a.collection)(a.item.action === 'publish' ? 'content.published' : 'content.unpublished', a.entry, resources.get(a)));
}

/** POST /api/releases/{id}/publish and the `publishRelease` mutation: a failing item is a 422 and nothing changes. */
export async function publishReleaseNow(ctx: Ctx, id: string): Promise<ReleaseView> {
  authorizeReleases(ctx, 'update');
  const view = await publishInTransaction(ctx, id);
  // Published by hand before its time: its pending run has nothing left to do.
  for (const run of await cancelReleaseRuns(ctx.db, ctx, view.id)) await ctx.services.schedules?.cancelled(run);
  return view;
}

export interface PublishReleaseJob {
  projectId: number;
  /** The release's id (its UUID, as the API shows it). */
  releaseId: string;
  /** Who the publish is done for (the token that scheduled it, or a system actor); versions record a token actor. */
  actor: Actor;
  /** The webhook source of the events; `api` unless the schedule came from the project's own tools. */
  source?: EventSource;
}

export type PublishReleaseOutcome = { ok: true; release: ReleaseView } | { ok: false; errors: FieldErrors; message: string; release: ReleaseView | null };

/**
 * The publish without an HTTP request, for the scheduler. On a failing item the release is marked
 * `failed` with its errors and `release.failed` is emitted (one transaction of its own), and nothing
 * else changes. A release that is gone, or already published, is reported and left alone; other
 * errors (database unreachable) are thrown for the caller's retry.
 */
export async function publishRelease(services: Services, job: PublishReleaseJob): Promise<PublishReleaseOutcome> {
  const project = await services.database.prisma.project.findUnique({ where: { id: job.projectId } });
  if (!project) throw notFound('Project not found.');
  const ctx: Ctx = {
    services,
    db: services.database.prisma,
    project,
    actor: job.actor,
    source: job.source ?? 'api',
    log: services.log.child({ actor: job.actor.name, release: job.releaseId }),
    memo: new Map(),
  };
  try {
    return { ok: true, release: await publishInTransaction(ctx, job.releaseId) };
  } catch (err) {
    if (!isAppError(err) || err.code !== 'VALIDATION_FAILED') {
      if (isAppError(err) && (err.code === 'NOT_FOUND' || err.code === 'CONFLICT')) return { ok: false, errors: {}, message: err.message, release: null };
      throw err;
    }
    const release = await markFailed(ctx, job.releaseId, err.errors ?? {});
    return { ok: false, errors: err.errors ?? {}, message: err.message, release };
  }
}

async function markFailed(ctx: Ctx, id: string, errors: FieldErrors): Promise<ReleaseView> {
  return ctx.db.$transaction(async (tx: Tx) => {
    const release = await lockRelease(tx, ctx, id);
    const row = await tx.release.update({
      where: { id: release.id },
      data: { status: 'failed', errors: errors as Prisma.InputJsonValue, updatedAt: new Date() },
      include: RELEASE_INCLUDE,
    });
    const view = serializeRelease(row);
    await emitReleaseEvent(tx, ctx, 'release.failed', view);
    return view;
  }, TX_OPTIONS);
}
