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
  data: Record<string, unknown>;
  locale: string;
  translation_group_id: number | null;
  last_version_number: number;
}

/**
 * Publishes the entry's current working draft as a new immutable version. Must run inside a
 * transaction: the entry row is locked (SELECT ... FOR UPDATE), so concurrent publishes and reverts
 * of one entry — from any number of server processes — serialise here. That gives gapless,
 * never-reused version numbers, and the pointer, the published copy and the snapshot are written
 * together from the same locked row, so they always agree. Retention pruning runs in the same
 * transaction and never touches the version it just made current.
 */
export async function mintVersion(tx: Tx, ctx: Ctx, entryId: number): Promise<EntryVersion> {
  const rows = await tx.$queryRaw<LockedEntry[]>(Prisma.sql`
    SELECT id, data, locale, translation_group_id, last_version_number
    FROM entries WHERE id = ${entryId} AND deleted_at IS NULL FOR UPDATE`);
  const entry = rows[0];
  if (!entry) throw notFound('Entry not found.');

  const versionNumber = entry.last_version_number + 1;
  const now = new Date();
  const snapshot: Snapshot = {
    fields: entry.data,
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
      published_data = data,
      published_version_id = ${version.id},
      published_version_number = ${versionNumber},
      last_version_number = ${versionNumber},
      is_draft_dirty = false,
      published_at = COALESCE(published_at, ${now}),
      updated_at = ${now}
    WHERE id = ${entryId}`);

  const keep = RETENTION[ctx.project.plan];
  if (keep !== null) {
    await tx.$executeRaw(Prisma.sql`
      DELETE FROM entry_versions
      WHERE entry_id = ${entryId} AND id <> ${version.id} AND version_number <= ${versionNumber - keep}`);
  }
  return version;
}
