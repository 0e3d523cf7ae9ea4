import type { Entry } from '../../db/generated/prisma/client.ts';
import { Prisma, type Tx } from '../../db/client.ts';
import { authorize, type Ctx } from '../../context.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import { collectionForRequest } from '../../collections/schema-cache.ts';
import { isUuid } from '../types.ts';
import { notFound } from '../../errors.ts';
import { emitContentEvent } from '../../events/outbox.ts';
import { passwordNamesSql } from '../store/snapshot.ts';
import type { ContentEventName } from '../../events/names.ts';
import { mintEntries, type MintTarget } from '../store/mint.ts';
import type { Snapshot } from '../store/snapshot.ts';
import { lockEntry, parseVersionNumber } from '../versions/lookup.ts';
import { publishWithoutLock } from './publish-without-lock.ts';
import { restoreDraft, type SkippedReference } from './restore.ts';
import type { VersionRecord } from '../versions/serialize.ts';
import { entryResource } from '../versions/entry-resource.ts';
import type { PublishResult } from './publish-result.ts';
import type { EntryResource } from '../reads/serialize.ts';

/**
 * Publish, unpublish and revert all serialise on the entry row lock. Under a burst on one entry the
 * transactions queue behind each other (and behind the connection pool), so they get more room than
 * Prisma's 2 s / 5 s defaults: a queued publish must wait its turn, not fail with a 500.
 */
const TX_OPTIONS = { maxWait: 15_000, timeout: 30_000 } as const;

export type { PublishResult } from './publish-result.ts';

export interface UnpublishResult {
  collection: CollectionSchema;
  entry: Entry;
  resource: EntryResource;
  /** false when the entry was not published (nothing changed, no event). */
  changed: boolean;
}

export interface RevertResult extends PublishResult {
  revertedFrom: number;
  skipped: SkippedReference[];
}

/** POST /api/{collection}/{uuid}/publish: the working draft becomes version N+1 and goes live. */
export async function publishEntry(ctx: Ctx, collectionSlug: string, uuid: string): Promise<PublishResult> {
  authorize(ctx, 'update');
  const collection = await collectionForRequest(ctx, collectionSlug);
  if (!isUuid(uuid)) throw notFound('Entry not found.');
  if (ctx.services.database.kind === 'postgres') {
    const published = await publishWithoutLock(ctx, collection, uuid);
    if (published) return published;
  }
  return ctx.db.$transaction((tx) => publishEntryInTransaction(tx, ctx, collection, uuid), TX_OPTIONS);
}

/**
 * The publish inside a caller's transaction (a scheduled publish commits it with the claim of its
 * schedule, so the two happen together or not at all). The caller has authorized. The draft published
 * is the one the row lock finds, i.e. as it is now.
 */
export async function publishEntryInTransaction(tx: Tx, ctx: Ctx, collection: CollectionSchema, uuid: string): Promise<PublishResult> {
  if (!isUuid(uuid)) throw notFound('Entry not found.');
  // The mint finds the entry by its UUID as it locks it, and 404s if there is no live one.
  return mintAndAnnounce(tx, ctx, collection, { uuid, collectionId: collection.id });
}

/**
 * POST /api/{collection}/{uuid}/unpublish: back to draft, pointer and published copy cleared, every
 * version kept. Unpublishing an entry that is not published changes nothing and emits nothing.
 */
export async function unpublishEntry(ctx: Ctx, collectionSlug: string, uuid: string): Promise<UnpublishResult> {
  authorize(ctx, 'update');
  const collection = await collectionForRequest(ctx, collectionSlug);
  return ctx.db.$transaction((tx) => unpublishEntryInTransaction(tx, ctx, collection, uuid), TX_OPTIONS);
}

/** The unpublish inside a caller's transaction (see publishEntryInTransaction); the caller has authorized. */
export async function unpublishEntryInTransaction(tx: Tx, ctx: Ctx, collection: CollectionSchema, uuid: string): Promise<UnpublishResult> {
  const locked = await lockEntry(tx, ctx, collection, uuid);
  if (locked.state === 'draft' && locked.publishedVersionId === null && locked.publishedData === null) {
    return { collection, entry: locked, resource: await entryResource(tx, ctx, collection, locked, 'draft'), changed: false };
  }
  const entry = await tx.entry.update({
    where: { id: locked.id, collectionId: collection.id },
    data: { state: 'draft', publishedVersionId: null, publishedVersionNumber: null, publishedData: Prisma.DbNull, updatedAt: new Date() },
  });
  const resource = await entryResource(tx, ctx, collection, entry, 'draft');
  await announce(tx, ctx, 'content.unpublished', collection, entry, resource);
  return { collection, entry, resource, changed: true };
}

/**
 * POST /api/{collection}/{uuid}/versions/{version}/revert: the working draft is restored from the
 * snapshot (dead relation/media targets skipped) and published as a new version, in one transaction.
 * The entry lock is taken before the target version is read, so a concurrent publish cannot prune it
 * in between.
 */
export async function revertToVersion(ctx: Ctx, collectionSlug: string, uuid: string, versionParam: unknown): Promise<RevertResult> {
  authorize(ctx, 'update');
  const collection = await collectionForRequest(ctx, collectionSlug);
  const number = parseVersionNumber(versionParam);
  return ctx.db.$transaction(async (tx) => {
    const locked = await lockEntry(tx, ctx, collection, uuid);
    const target = await tx.entryVersion.findUnique({ where: { entryId_versionNumber: { entryId: locked.id, versionNumber: number } } });
    if (!target) throw notFound('Version not found.');
    const snapshot = target.snapshot as unknown as Snapshot;
    const restored = await restoreDraft(tx, ctx.project.id, collection, snapshot.fields ?? {}, (locked.data ?? {}) as Record<string, unknown>);
    const published = await mintAndAnnounce(tx, ctx, collection, { entryId: locked.id, collectionId: collection.id, draft: restored.data });
    return { ...published, revertedFrom: number, skipped: restored.skipped };
  }, TX_OPTIONS);
}

async function mintAndAnnounce(tx: Tx, ctx: Ctx, collection: CollectionSchema, target: MintTarget): Promise<PublishResult> {
  const [{ version: row, entry }] = await mintEntries(tx, ctx, [target]);
  // Built from what the mint wrote, not re-read: the token is the acting one, the version is current.
  const version: VersionRecord = {
    row,
    createdBy: ctx.actor.kind === 'token' ? { id: ctx.actor.tokenId, name: ctx.actor.name } : null,
    currentVersionId: row.id,
    collectionId: collection.id,
  };
  const resource = await entryResource(tx, ctx, collection, entry, 'published');
  await announce(tx, ctx, 'content.published', collection, entry, resource);
  return { collection, entry, version, resource };
}

function announce(tx: Tx, ctx: Ctx, event: ContentEventName, collection: CollectionSchema, entry: Entry, resource: unknown) {
  return emitContentEvent(tx, ctx, {
    event,
    collection: { id: collection.id, uuid: collection.uuid, slug: collection.slug },
    entryUuid: entry.uuid,
    locale: entry.locale,
    entry: resource,
  }, passwordNamesSql);
}
