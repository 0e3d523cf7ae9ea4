import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Asset } from '../db/generated/prisma/client.ts';
import { Prisma } from '../db/client.ts';
import { authorize, type Ctx } from '../context.ts';
import { AppError, ErrorBag, notFound, validationFailed } from '../errors.ts';
import { isUuid } from '../content/types.ts';
import { unstorableText } from '../text.ts';
import { parsePositiveInt, firstString } from '../content/query.ts';
import { assetStorage, TooLargeError } from './storage.ts';
import { acceptedMimeType, ASSET_KINDS, safeFilename, type AssetKind } from './types.ts';

export interface UploadInput {
  filename: string;
  mimetype?: string;
  stream: Readable;
  /** True when the multipart parser cut the file at its size limit (it ends the stream instead of failing it). */
  truncated?: () => boolean;
}

const tooLarge = (limit: number) => new AppError('PAYLOAD_TOO_LARGE', `The file may not be greater than ${Math.floor(limit / 1024)} kilobytes.`);

/** Stores an uploaded file and its row. The bytes are removed again if the row cannot be written. */
export async function uploadAsset(ctx: Ctx, input: UploadInput): Promise<Asset> {
  authorize(ctx, 'create');
  // The multipart name is the one string of an upload the request guard never sees.
  const badName = unstorableText(input.filename);
  if (badName) {
    input.stream.resume();
    throw validationFailed({ file: [`The file name ${badName}, which cannot be stored.`] });
  }
  const limit = ctx.services.config.UPLOAD_LIMIT_BYTES;
  const mimeType = acceptedMimeType(input.mimetype, input.filename);
  if (!mimeType) {
    input.stream.resume();
    throw validationFailed({ file: [`The file type ${input.mimetype || 'unknown'} is not allowed: upload an image, video, audio file or document.`] });
  }
  const uuid = randomUUID();
  const storageKey = `${ctx.project.uuid}/${uuid}`;
  const storage = assetStorage(ctx.services);
  let size: number;
  try {
    ({ size } = await storage.put(storageKey, input.stream, { contentType: mimeType, maxBytes: limit }));
  } catch (err) {
    if (err instanceof TooLargeError || (err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(limit);
    throw err;
  }
  if (input.truncated?.()) {
    await storage.delete(storageKey);
    throw tooLarge(limit);
  }
  if (size === 0) {
    await storage.delete(storageKey);
    throw validationFailed({ file: ['The file is empty.'] });
  }
  try {
    return await ctx.db.asset.create({
      data: {
        uuid,
        projectId: ctx.project.id,
        filename: safeFilename(input.filename),
        // Cut by code points: cutting UTF-16 units could split a surrogate pair.
        originalFilename: [...(input.filename || 'file')].slice(0, 255).join(''),
        mimeType,
        size,
        storageKey,
      },
    });
  } catch (err) {
    await storage.delete(storageKey);
    throw err;
  }
}

/** By UUID or numeric id, live assets of the project only; 404 `Asset not found` (facts §7). */
export async function getAsset(ctx: Ctx, idOrUuid: string): Promise<Asset> {
  authorize(ctx, 'read');
  return findAsset(ctx, idOrUuid);
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
    const contains = q.search.slice(0, 200);
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
 * `force` also removes the bytes and the row. Media values that point at it read as absent.
 */
export async function deleteAsset(ctx: Ctx, idOrUuid: string, force: boolean): Promise<{ message: string }> {
  authorize(ctx, 'delete');
  const asset = await findAsset(ctx, idOrUuid);
  if (force) {
    await ctx.db.asset.delete({ where: { id: asset.id } });
    await assetStorage(ctx.services).delete(asset.storageKey);
  } else {
    await ctx.db.asset.update({ where: { id: asset.id }, data: { deletedAt: new Date() } });
  }
  return { message: 'Asset deleted.' };
}
