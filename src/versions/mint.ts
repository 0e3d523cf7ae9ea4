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
  const [version] = await mintVersions(tx, ctx, [entryId]);
  return version;
}

/**
 * `mintVersion` for many entries at once (bulk publish) with the same guarantees and a constant
 * number of statements: one locking SELECT, one INSERT of every version, one UPDATE of every entry,
 * at most one retention DELETE. Rows are locked in id order, so batches over overlapping entries
 * (and single publishes, and bulk updates, which lock in the same order) queue instead of
 * deadlocking. Returns one version per input id, in input order; an id given twice is published
 * once. Any id that is missing, soft-deleted or of another project is a 404 before anything is written.
 */
export async function mintVersions(tx: Tx, ctx: Ctx, entryIds: number[]): Promise<EntryVersion[]> {
  const ids = [...new Set(entryIds)].sort((a, b) => a - b);
  if (ids.length === 0) return [];
  // ORDER BY sits below the row-locking step in the plan, so rows are locked in id order.
  const locked = await tx.$queryRaw<LockedEntry[]>(Prisma.sql`
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
    WHERE e.id = ANY(${ids}::int[]) AND e.project_id = ${ctx.project.id} AND e.deleted_at IS NULL
    ORDER BY e.id
    FOR UPDATE OF e`);
  if (locked.length !== ids.length) throw notFound('Entry not found.');

  const now = new Date();
  const createdByTokenId = tokenIdOf(ctx);
  const created = await tx.entryVersion.createManyAndReturn({
    data: locked.map((entry) => {
      const snapshot: Snapshot = {
        fields: entry.fields,
        meta: { locale: entry.locale, translation_group_id: entry.translation_group_id },
      };
      return {
        entryId: entry.id,
        versionNumber: entry.last_version_number + 1,
        locale: entry.locale,
        translationGroupId: entry.translation_group_id,
        snapshot: snapshot as unknown as Prisma.InputJsonValue,
        publishedAt: now,
        createdByTokenId,
      };
    }),
  });
  const byEntry = new Map(created.map((v) => [v.entryId, v]));
  const pointers = locked.map((entry) => {
    const version = byEntry.get(entry.id)!;
    return { id: entry.id, fields: entry.fields, version_id: version.id, number: version.versionNumber };
  });
  await tx.$executeRaw(Prisma.sql`
    UPDATE entries AS e SET
      state = 'published',
      published_data = v.fields,
      published_version_id = v.version_id,
      published_version_number = v.number,
      last_version_number = v.number,
      is_draft_dirty = false,
      published_at = COALESCE(e.published_at, ${now}),
      updated_at = ${now}
    FROM jsonb_to_recordset(${JSON.stringify(pointers)}::jsonb) AS v(id int, fields jsonb, version_id int, number int)
    WHERE e.id = v.id`);

  await pruneVersions(tx, ctx.project.plan, created);
  return entryIds.map((id) => byEntry.get(id)!);
}

/**
 * Keeps the newest `RETENTION[plan]` versions of each entry. Numbers are gapless below the last minted
 * one (only this function deletes versions, always from the bottom), so "number <= newest - keep" is
 * exactly the oldest surplus — and it uses the (entry_id, version_number) index. The just-minted
 * current versions are excluded by id as well, so no plan value can ever prune them.
 */
async function pruneVersions(tx: Tx, plan: Plan, current: EntryVersion[]): Promise<void> {
  const keep = RETENTION[plan];
  if (keep === null) return;
  const floors = current
    .map((v) => ({ entry_id: v.entryId, current_id: v.id, floor: v.versionNumber - keep }))
    .filter((f) => f.floor >= 1);
  if (floors.length === 0) return;
  await tx.$executeRaw(Prisma.sql`
    DELETE FROM entry_versions AS v
    USING jsonb_to_recordset(${JSON.stringify(floors)}::jsonb) AS p(entry_id int, current_id int, floor int)
    WHERE v.entry_id = p.entry_id AND v.id <> p.current_id AND v.version_number <= p.floor`);
}
