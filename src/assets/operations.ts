import type { Asset } from '../db/generated/prisma/client.ts';
import { escapeLike } from '../text.ts';
import { Prisma } from '../db/client.ts';
import { authorize, type Ctx } from '../context.ts';
import { ErrorBag, notFound } from '../errors.ts';
import { isUuid } from '../uuid.ts';
import { unstorableText } from '../text.ts';
import { parsePositiveInt, firstString } from '../text.ts';
import { assetStorage } from './storage.ts';
import { ASSET_KINDS, type AssetKind } from './types.ts';

export { uploadAsset, bulkUploadAssets, BULK_UPLOAD_MAX, type UploadInput } from './upload.ts';

/** By UUID or numeric id, live assets of the project only; 404 `Asset not found` (docs/assets.md). */
export async function getAsset(ctx: Ctx, idOrUuid: string): Promise<Asset> {
  authorize(ctx, 'read');
  return findAsset(ctx, idOrUuid);
}

/**
 * By the exact original filename (docs/assets.md: `GET /files/name/{filename}`), live assets of the project;
 * when several share the name, the newest.
 */
export async function getAssetByName(ctx: Ctx, originalFilename: string): Promise<Asset> {
  authorize(ctx, 'read');
  const asset = originalFilename
    ? await ctx.db.asset.findFirst({
        where: { projectId: ctx.project.id, originalFilename, deletedAt: null },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      })
    : null;
  if (!asset) throw notFound('Asset not found');
  return asset;
}

async function findAsset(ctx: Ctx, idOrUuid: string): Promise<Asset> {
  const where = isUuid(idOrUuid) ? { uuid: idOrUuid.toLowerCase() } : /^\d{1,9}$/.test(idOrUuid) ? { id: Number(idOrUuid) } : null;
  const asset = where ? await ctx.db.asset.findFirst({ where: { ...where, projectId: ctx.project.id, deletedAt: null } }) : null;
  if (!asset) throw notFound('Asset not found');
  return asset;
}

export interface AssetListQuery {
  search?: string;
  type?: AssetKind;
  perPage: number;
  page: number;
}

export function parseAssetListQuery(q: Record<string, unknown>): AssetListQuery {
  const bag = new ErrorBag();
  const type = firstString(q.type);
  if (type !== undefined && !(ASSET_KINDS as readonly string[]).includes(type)) bag.add('type', `The type must be one of ${ASSET_KINDS.join(', ')}.`);
  const perPage = Math.min(parsePositiveInt(bag, 'paginate', q.paginate) ?? 25, 100);
  const page = parsePositiveInt(bag, 'page', q.page) ?? 1;
  bag.throwIfAny();
  return { search: firstString(q.search), type: type as AssetKind | undefined, perPage, page };
}

/** Newest first; `search` matches filename, original name or MIME type; `type` groups MIME types. */
export async function listAssets(ctx: Ctx, q: AssetListQuery): Promise<{ data: Asset[]; total: number; page: number; perPage: number }> {
  authorize(ctx, 'read');
  const where: Prisma.AssetWhereInput = { projectId: ctx.project.id, deletedAt: null };
  const and: Prisma.AssetWhereInput[] = [];
  if (q.search) {
    const contains = escapeLike(q.search.slice(0, 200));
    and.push({ OR: ['filename', 'originalFilename', 'mimeType'].map((k) => ({ [k]: { contains, mode: 'insensitive' } })) });
  }
  if (q.type === 'document') and.push({ NOT: ['image/', 'video/', 'audio/'].map((p) => ({ mimeType: { startsWith: p } })) });
  else if (q.type) and.push({ mimeType: { startsWith: `${q.type}/` } });
  if (and.length) where.AND = and;
  const [data, total] = await Promise.all([
    ctx.db.asset.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: q.perPage, skip: (q.page - 1) * q.perPage }),
    ctx.db.asset.count({ where }),
  ]);
  return { data, total, page: q.page, perPage: q.perPage };
}

/**
 * Soft delete by default: the asset leaves lists, media fields and the public URL, the bytes stay.
 * `force` also removes the row, the bytes and every variant derived from them. Media values that point at it read as absent.
 */
export async function deleteAsset(ctx: Ctx, idOrUuid: string, force: boolean): Promise<{ message: string }> {
  authorize(ctx, 'delete');
  const asset = await findAsset(ctx, idOrUuid);
  // Guarded on the row still being live: of concurrent deletes only the one whose statement changed
  // it succeeds (and removes the bytes); the others find it gone, as a later request would (404).
  const live = { id: asset.id, deletedAt: null };
  const changed = force
    ? await ctx.db.asset.deleteMany({ where: live })
    : await ctx.db.asset.updateMany({ where: live, data: { deletedAt: new Date() } });
  if (changed.count === 0) throw notFound('Asset not found');
  ctx.services.assetsChanged?.([asset.uuid]);
  if (force) await assetStorage(ctx.services).delete(asset.storageKey);
  return { message: 'Asset deleted.' };
}
