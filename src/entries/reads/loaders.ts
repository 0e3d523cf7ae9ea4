import DataLoader from 'dataloader';
import type { Asset } from '../../db/generated/prisma/client.ts';
import { memo, readSource, type Ctx } from '../../context.ts';
import { buildCollectionSchema, type CollectionSchema } from '../../collections/model.ts';
import { isUuid, type EntryRow } from '../types.ts';
import { cachedCollectionById, rememberCollection } from '../../collections/schema-cache.ts';
import { scopedSchema } from '../../collections/token-scope.ts';
import { ENTRY_COLUMNS } from '../store/rows.ts';
import type { ReadRow } from './read-rows.ts';

// $2: the project's collections, as parameters, and the statement unnamed, so PostgreSQL plans (and
// locks) only their partitions. Chosen in the same statement by a subquery, the partitions would be
// known only at run time: every partition of every project would be planned and locked, and at a few
// hundred collections the lock table runs out.
const ENTRIES_BY_UUID = `SELECT ${ENTRY_COLUMNS.text} FROM entries e
  WHERE e.collection_id = ANY($2::int[]) AND e.uuid = ANY($1::uuid[])`;
const ASSETS_BY_UUID = `
  SELECT id, uuid::text AS uuid, project_id AS "projectId", filename, original_filename AS "originalFilename",
         mime_type AS "mimeType", size, storage_key AS "storageKey", metadata, created_at AS "createdAt",
         updated_at AS "updatedAt", deleted_at AS "deletedAt"
    FROM assets WHERE uuid = ANY($1::uuid[]) AND project_id = $2 AND deleted_at IS NULL`;

export interface ContentLoaders {
  /**
   * Live (not soft-deleted) entries of the project by UUID, looked up in the collections of
   * `linkTargets` (entries are partitioned by collection: a lookup names the partitions it reads).
   */
  entryByUuid: DataLoader<string, ReadRow | null>;
  /** The collections relation fields being hydrated link to (they are looked up among the project's). */
  linkTargets: Set<number>;
  /** Live assets of the project by UUID. */
  assetByUuid: DataLoader<string, Asset | null>;
  /** Collections of the project with their field trees, by internal id. */
  collectionById: DataLoader<number, CollectionSchema | null>;
}

/**
 * One set of loaders per request (per Ctx): every relation target, asset and related collection that a
 * read touches is fetched with one query per kind per tick, however many entries are serialized.
 * A Ctx bound to a transaction must get its own set (see `txCtx`), so reads inside the transaction
 * see its writes and never wait on a second connection.
 */
/**
 * The ids of the project's collections: those authentication read with the project (the map the read
 * caches key by, current for the request), else (a system context: CLI, jobs) read now.
 */
async function projectCollectionIds(ctx: Ctx): Promise<number[]> {
  if (ctx.collectionGenerations) return Object.values(ctx.collectionGenerations).map((g) => g[0]);
  const rows = await ctx.db.collection.findMany({ where: { projectId: ctx.project.id }, select: { id: true } });
  return rows.map((r) => r.id);
}

export function contentLoaders(ctx: Ctx): ContentLoaders {
  return memo(ctx, 'content:loaders', () => {
    const projectId = ctx.project.id;
    const linkTargets = new Set<number>();
    return {
      linkTargets,
      entryByUuid: new DataLoader<string, ReadRow | null>(async (keys) => {
        const uuids = keys.filter(isUuid).map((k) => k.toLowerCase());
        const { db, database: plain } = await readSource(ctx);
        // A relation may link any collection of the project (nested levels, GraphQL resolvers): the
        // project's collections name the partitions read, so the lookup costs what this project holds.
        const rows = !uuids.length
          ? []
          : plain
            ? await plain.query<EntryRow>(ENTRIES_BY_UUID, [uuids, await projectCollectionIds(ctx)])
            : await db.entry.findMany({ where: { collection: { projectId }, uuid: { in: uuids } } });
        const byUuid = new Map(rows.filter((r) => r.projectId === projectId && r.deletedAt === null).map((r) => [r.uuid, r]));
        return keys.map((k) => byUuid.get(k.toLowerCase()) ?? null);
      }),
      assetByUuid: new DataLoader<string, Asset | null>(async (keys) => {
        const uuids = keys.filter(isUuid).map((k) => k.toLowerCase());
        const { db, database: plain } = await readSource(ctx);
        const rows = !uuids.length
          ? []
          : plain
            ? await plain.query<Asset>(ASSETS_BY_UUID, [uuids, projectId], { name: 'cms_assets_by_uuid' })
            : await db.asset.findMany({ where: { projectId, uuid: { in: uuids }, deletedAt: null } });
        const byUuid = new Map(rows.map((r) => [r.uuid, r]));
        return keys.map((k) => byUuid.get(k.toLowerCase()) ?? null);
      }),
      collectionById: new DataLoader<number, CollectionSchema | null>(async (ids) => {
        const byId = new Map<number, CollectionSchema>();
        for (const id of ids) {
          const hit = cachedCollectionById(ctx, id);
          if (hit) byId.set(id, hit);
        }
        const missing = ids.filter((id) => !byId.has(id));
        if (missing.length) {
          const rows = await ctx.db.collection.findMany({
            where: { projectId, id: { in: missing } },
            include: { fields: { where: { deletedAt: null } } },
          });
          for (const c of rows) {
            const schema = buildCollectionSchema(c, c.fields);
            rememberCollection(ctx, schema);
            byId.set(c.id, scopedSchema(ctx, schema));
          }
        }
        return ids.map((id) => byId.get(id) ?? null);
      }),
    };
  });
}
