import { Prisma } from '../db/client.ts';
import type { Tx } from '../db/client.ts';
import { authorize, type Ctx } from '../context.ts';
import { WHOLE_PROJECT, authorizeProjectAdmin } from '../admin-scope.ts';
import { readLiveModel, toDocument } from './snapshot.ts';
import { EXPORT_FORMAT, EXPORT_VERSION, type AssetRecord, type EntryRecord, type ExportRecord } from './records.ts';
import { isoOrNull } from '../text.ts';

/** Entries read per statement: memory stays bounded by one page (and its versions) whatever the project's size. */
export const EXPORT_PAGE_SIZE = 500;
/** An export is one consistent read; this bounds how long it may hold its snapshot. */
export const EXPORT_TIMEOUT_MS = 24 * 60 * 60 * 1000;

export interface ExportSink {
  /** Called once per record, in order; the export waits for it (backpressure). */
  record(r: ExportRecord): Promise<void>;
  /** Called for each live or trashed asset after its record, to copy its bytes (absent: records only). */
  assetFile?(asset: AssetRecord, storageKey: string): Promise<void>;
}


/**
 * `cms export`: the whole project as records (records.ts), from one REPEATABLE READ snapshot, so a
 * write during the export is either wholly in it or not at all. Entries are read by keyset
 * pagination on their id, a page at a time.
 */
export async function exportProject(ctx: Ctx, sink: ExportSink): Promise<{ entries: number; versions: number; assets: number }> {
  authorizeProjectAdmin(ctx, WHOLE_PROJECT.exports);
  const projectId = ctx.project.id;
  return ctx.db.$transaction(
    async (tx) => {
      // The project's collections name the partitions every entry statement reads (entries are
      // partitioned by collection), so an export costs what this project holds.
      const collectionIds = (await tx.collection.findMany({ where: { projectId }, select: { id: true } })).map((c) => c.id);
      const [entries, versions, assets] = await Promise.all([
        tx.entry.count({ where: { projectId, collectionId: { in: collectionIds } } }),
        tx.entryVersion.count({ where: { collectionId: { in: collectionIds } } }),
        tx.asset.count({ where: { projectId } }),
      ]);
      const p = ctx.project;
      await sink.record({
        type: 'project',
        format: EXPORT_FORMAT,
        version: EXPORT_VERSION,
        project: { uuid: p.uuid, name: p.name, description: p.description, plan: p.plan, created_at: p.createdAt.toISOString() },
        counts: { entries, versions, assets },
      });
      const model = await readLiveModel(tx, p);
      await sink.record({ type: 'schema', schema: toDocument(model) });
      const slugs = new Map(model.collections.map((c) => [c.id, c.slug]));
      const counts = { entries: 0, versions: 0, assets: 0 };

      for (let after = 0; ; ) {
        const page = await tx.asset.findMany({ where: { projectId, id: { gt: after } }, orderBy: { id: 'asc' }, take: EXPORT_PAGE_SIZE });
        if (page.length === 0) break;
        for (const a of page) {
          const record: AssetRecord = {
            type: 'asset',
            uuid: a.uuid,
            filename: a.filename,
            original_filename: a.originalFilename,
            mime_type: a.mimeType,
            size: a.size,
            metadata: (a.metadata ?? null) as Record<string, unknown> | null,
            created_at: a.createdAt.toISOString(),
            updated_at: a.updatedAt.toISOString(),
            deleted_at: isoOrNull(a.deletedAt),
          };
          await sink.record(record);
          if (sink.assetFile) await sink.assetFile(record, a.storageKey);
          counts.assets++;
        }
        after = page[page.length - 1].id;
      }

      for (let after = 0; ; ) {
        const page = await tx.entry.findMany({
          where: { projectId, collectionId: { in: collectionIds }, id: { gt: after } },
          orderBy: { id: 'asc' },
          take: EXPORT_PAGE_SIZE,
          include: { versions: { orderBy: { versionNumber: 'asc' } } },
        });
        if (page.length === 0) break;
        const groupIds = page.flatMap((e) => [e.translationGroupId, ...e.versions.map((v) => v.translationGroupId)]);
        const firstOfGroup = await groupLeaders(tx, collectionIds, [...new Set(groupIds.filter((g): g is number => g !== null))]);
        const leaderOf = (g: number | null) => (g === null ? null : (firstOfGroup.get(g) ?? null));
        for (const e of page) {
          const record: EntryRecord = {
            type: 'entry',
            uuid: e.uuid,
            collection: slugs.get(e.collectionId)!,
            locale: e.locale,
            translation_of: leaderOf(e.translationGroupId),
            state: e.state,
            data: e.data as Record<string, unknown>,
            published_data: (e.publishedData ?? null) as Record<string, unknown> | null,
            published_version_number: e.publishedVersionNumber,
            last_version_number: e.lastVersionNumber,
            is_draft_dirty: e.isDraftDirty,
            published_at: isoOrNull(e.publishedAt),
            published_updated_at: isoOrNull(e.publishedUpdatedAt),
            created_at: e.createdAt.toISOString(),
            updated_at: e.updatedAt.toISOString(),
            deleted_at: isoOrNull(e.deletedAt),
            versions: e.versions.map((v) => ({
              uuid: v.uuid,
              version_number: v.versionNumber,
              label: v.label,
              description: v.description,
              locale: v.locale,
              translation_of: leaderOf(v.translationGroupId),
              snapshot: v.snapshot as Record<string, unknown>,
              published_at: isoOrNull(v.publishedAt),
              created_at: v.createdAt.toISOString(),
              updated_at: v.updatedAt.toISOString(),
            })),
          };
          await sink.record(record);
          counts.entries++;
          counts.versions += e.versions.length;
        }
        after = page[page.length - 1].id;
      }
      await sink.record({ type: 'end', counts });
      return counts;
    },
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, timeout: EXPORT_TIMEOUT_MS, maxWait: 10_000 },
  );
}

/** The uuid of each translation group's first entry (by id): how an export names a group portably. */
async function groupLeaders(tx: Tx, collectionIds: number[], groups: number[]): Promise<Map<number, string>> {
  if (groups.length === 0) return new Map();
  const rows = await tx.$queryRaw<Array<{ group: number; uuid: string }>>`
    SELECT DISTINCT ON (translation_group_id) translation_group_id AS "group", uuid::text AS uuid
    FROM entries WHERE collection_id = ANY(${collectionIds}::int[]) AND translation_group_id = ANY(${groups}::int[]) ORDER BY translation_group_id, id`;
  return new Map(rows.map((r) => [r.group, r.uuid]));
}
