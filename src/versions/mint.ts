import type { EntryVersion, Plan } from '../db/generated/prisma/client.ts';
import type { Tx } from '../db/client.ts';
import { Prisma } from '../db/client.ts';
import { tokenIdOf, type Ctx } from '../context.ts';
import { notFound } from '../errors.ts';

/** Versions kept per entry by plan (spec §8); null = unlimited. */
export const RETENTION: Record<Plan, number | null> = { basic: 10, grow: 50, pro: null };

export interface Snapshot {
  fields: Record<string, unknown>;
  meta: { locale: string; translation_group_id: number | null };
}

interface LockedEntry {
  id: number;
  locale: string;
  translation_group_id: number | null;
  last_version_number: number;
  /** The draft without password values (see below). */
  fields: Record<string, unknown>;
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
export async function mintVersion(tx: Tx, ctx: Ctx, entryId: number): Promise<EntryVersion> {
  const rows = await tx.$queryRaw<LockedEntry[]>(Prisma.sql`
    SELECT e.id, e.locale, e.translation_group_id, e.last_version_number,
      e.data - COALESCE((
        SELECT array_agg(DISTINCT f.name) FROM fields f
        WHERE f.collection_id = e.collection_id AND f.parent_field_id IS NULL AND f.type = 'password'
          AND NOT EXISTS (
            SELECT 1 FROM fields g
            WHERE g.collection_id = f.collection_id AND g.parent_field_id IS NULL AND g.deleted_at IS NULL
              AND g.name = f.name AND g.type <> 'password')
      ), '{}'::text[]) AS fields
    FROM entries e
    WHERE e.id = ${entryId} AND e.project_id = ${ctx.project.id} AND e.deleted_at IS NULL
    FOR UPDATE OF e`);
  const entry = rows[0];
  if (!entry) throw notFound('Entry not found.');

  const versionNumber = entry.last_version_number + 1;
  const now = new Date();
  const snapshot: Snapshot = {
    fields: entry.fields,
    meta: { locale: entry.locale, translation_group_id: entry.translation_group_id },
  };
  const version = await tx.entryVersion.create({
    data: {
      entryId,
      versionNumber,
      locale: entry.locale,
      translationGroupId: entry.translation_group_id,
      snapshot: snapshot as unknown as Prisma.InputJsonValue,
      publishedAt: now,
      createdByTokenId: tokenIdOf(ctx),
    },
  });
  await tx.$executeRaw(Prisma.sql`
    UPDATE entries SET
      state = 'published',
      published_data = ${JSON.stringify(entry.fields)}::jsonb,
      published_version_id = ${version.id},
      published_version_number = ${versionNumber},
      last_version_number = ${versionNumber},
      is_draft_dirty = false,
      published_at = COALESCE(published_at, ${now}),
      updated_at = ${now}
    WHERE id = ${entryId}`);

  await pruneVersions(tx, ctx.project.plan, entryId, version);
  return version;
}

/**
 * Keeps the newest `RETENTION[plan]` versions. Numbers are gapless below the last minted one (only
 * this function deletes versions, always from the bottom), so "number <= newest - keep" is exactly
 * the oldest surplus — and it uses the (entry_id, version_number) index. The just-minted current
 * version is excluded by id as well, so no plan value can ever prune it.
 */
async function pruneVersions(tx: Tx, plan: Plan, entryId: number, current: EntryVersion): Promise<void> {
  const keep = RETENTION[plan];
  if (keep === null) return;
  await tx.$executeRaw(Prisma.sql`
    DELETE FROM entry_versions
    WHERE entry_id = ${entryId} AND id <> ${current.id} AND version_number <= ${current.versionNumber - keep}`);
}
