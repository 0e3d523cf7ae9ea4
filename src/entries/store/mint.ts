import { randomUUID } from 'node:crypto';
import type { Entry, EntryVersion } from '../../db/generated/prisma/client.ts';
import type { Tx } from '../../db/client.ts';
import { Prisma } from '../../db/client.ts';
import { tokenIdOf, type Ctx } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { passwordNames, withoutKeys, type Snapshot } from './snapshot.ts';
import { retentionFloor, writeMintedVersions, type MintRow } from './version-statement.ts';

export type { Snapshot } from './snapshot.ts';

export interface Minted {
  version: EntryVersion;
  /** The entry row as the mint left it (pointer, published copy, dirty flag). */
  entry: Entry;
}

interface LockedEntry {
  id: number;
  collection_id: number;
  uuid: string;
  locale: string;
  translation_group_id: number | null;
  last_version_number: number;
  data: Record<string, unknown>;
  /** Names whose values are password hashes (see mintVersion). */
  password_names: string[];
}

/**
 * Publishes the entry's current working draft as a new immutable version. Must run inside a
 * transaction: the entry row is locked (SELECT ... FOR UPDATE), so concurrent publishes and reverts
 * of one entry — from any number of server processes — serialise here. That gives gapless,
 * never-reused version numbers, and the pointer, the published copy and the snapshot are written
 * together from the same locked row, so they always agree. Retention pruning runs in the same
 * transaction and never touches the version it just made current.
 *
 * Password values (scrypt hashes) are left out of the snapshot and of `published_data`: snapshots
 * are immutable and readable by any `read` token, so a hash written there would outlive every later
 * password change. A password field whose definition was soft-deleted still counts as a password,
 * unless a live field of another type has taken its name.
 */
export async function mintVersion(tx: Tx, ctx: Ctx, collectionId: number, entryId: number): Promise<EntryVersion> {
  const [minted] = await mintEntries(tx, ctx, [{ entryId, collectionId }]);
  return minted.version;
}

/**
 * `mintVersion` for many entries at once (bulk publish, publish-on-create) with the same guarantees.
 * Returns one version per input id, in input order; an id given twice is published once. Any id that
 * is missing, soft-deleted or of another project is a 404 before anything is written.
 */
export async function mintVersions(tx: Tx, ctx: Ctx, collectionId: number, entryIds: number[]): Promise<EntryVersion[]> {
  const minted = await mintEntries(tx, ctx, entryIds.map((entryId) => ({ entryId, collectionId })));
  return minted.map((m) => m.version);
}

/**
 * An entry to publish, by id, or by UUID within a collection (a publish by URL: the lock statement
 * finds the row, so the request needs no lookup of its own before the transaction).
 */
export type MintTarget = ({ entryId: number } | { uuid: string }) & {
  /** The entry's collection: names the partition its row is locked and written in. */
  collectionId: number;
  /** Replaces the working draft before it is snapshotted (revert); omitted = publish the draft as is. */
  draft?: Record<string, unknown>;
};

/**
 * The mint itself, in two statements whatever the number of entries — the lock time of a hot entry
 * is what bounds its publish rate:
 * 1. one SELECT ... FOR UPDATE of every entry, in id order (batches over overlapping entries, single
 *    publishes and bulk updates all lock in that order, so they queue instead of deadlocking);
 * 2. one statement (./version-statement.ts) that inserts the versions, prunes by plan and moves every pointer. It runs after
 *    the locks are held, so its snapshot already sees every earlier committed mint of these entries.
 * Returns the new version and entry row per target, in input order.
 */
export async function mintEntries(tx: Tx, ctx: Ctx, targets: MintTarget[]): Promise<Minted[]> {
  if (targets.length === 0) return [];
  const ids = [...new Set(targets.flatMap((t) => ('entryId' in t ? [t.entryId] : [])))];
  const byUuid = targets.flatMap((t) => ('uuid' in t ? [t] : []));
  const uuids = byUuid.map((t) => t.uuid.toLowerCase());
  const collections = [...new Set(targets.map((t) => t.collectionId))];
  // ORDER BY sits below the row-locking step in the plan, so rows are locked in id order.
  const locked = await tx.$queryRaw<LockedEntry[]>(Prisma.sql`
    SELECT e.id, e.uuid::text AS uuid, e.locale, e.translation_group_id, e.last_version_number, e.data,
      e.collection_id, ${passwordNames(Prisma.sql`e.collection_id`)} AS password_names
    FROM entries e
    WHERE e.collection_id = ANY(${collections}::int[]) AND (e.id = ANY(${ids}::int[])
        OR (e.uuid, e.collection_id) IN (SELECT * FROM unnest(${uuids}::uuid[], ${byUuid.map((t) => t.collectionId)}::int[])))
      AND e.project_id = ${ctx.project.id} AND e.deleted_at IS NULL
    ORDER BY e.id
    FOR UPDATE OF e`);
  const lockedIds = new Set(locked.map((e) => e.id));
  const idByUuid = new Map(locked.map((e) => [e.uuid, e.id]));
  const idOf = (t: MintTarget): number | undefined => ('entryId' in t ? (lockedIds.has(t.entryId) ? t.entryId : undefined) : idByUuid.get(t.uuid.toLowerCase()));
  const resolved = targets.map(idOf);
  if (resolved.some((id) => id === undefined)) throw notFound('Entry not found.');
  const drafts = new Map(targets.map((t, i) => [resolved[i]!, t.draft]));

  const now = new Date();
  const createdByTokenId = tokenIdOf(ctx);
  const versions = new Map<number, EntryVersion>();
  const rows = locked.map((entry): MintRow => {
    const draft = drafts.get(entry.id);
    const fields = withoutKeys(draft ?? entry.data ?? {}, entry.password_names);
    const snapshot: Snapshot = { fields, meta: { locale: entry.locale, translation_group_id: entry.translation_group_id } };
    const version: EntryVersion = {
      id: 0,
      uuid: randomUUID(),
      entryId: entry.id,
      collectionId: entry.collection_id,
      versionNumber: entry.last_version_number + 1,
      label: null,
      description: null,
      locale: entry.locale,
      translationGroupId: entry.translation_group_id,
      snapshot: snapshot as unknown as Prisma.JsonValue,
      publishedAt: now,
      createdAt: now,
      updatedAt: now,
      createdByTokenId,
    };
    versions.set(entry.id, version);
    return {
      entry_id: entry.id,
      collection_id: entry.collection_id,
      uuid: version.uuid,
      number: version.versionNumber,
      locale: entry.locale,
      translation_group_id: entry.translation_group_id,
      snapshot,
      fields,
      draft: draft ?? null,
      floor: retentionFloor(ctx.project.plan, version.versionNumber),
    };
  });

  const result = await writeMintedVersions(tx, rows, now, createdByTokenId);

  const byEntry = new Map<number, Minted>();
  for (const { versionId, ...entry } of result) {
    const version = versions.get(entry.id)!;
    version.id = versionId;
    byEntry.set(entry.id, { version, entry });
  }
  return resolved.map((id) => byEntry.get(id!)!);
}
