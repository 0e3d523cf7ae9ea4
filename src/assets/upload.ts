import { randomUUID } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { Asset } from '../db/generated/prisma/client.ts';
import { authorize, type Ctx } from '../context.ts';
import { AppError, validationFailed } from '../errors.ts';
import { assetStorage, TooLargeError, type AssetStorage } from './storage.ts';
import { acceptedMimeType, safeFilename } from './types.ts';
import { unstorableText } from '../text.ts';
import { imageBounds, isProcessableImage, readImageSize, renderImage } from './images.ts';
import { THUMBNAIL_NAME, thumbnailPlan, variantKey } from './variants.ts';
import { renderPool } from './render-pool.ts';

export interface UploadInput {
  filename: string;
  mimetype?: string;
  stream: Readable;
  /** True when the multipart parser cut the file at its size limit (it ends the stream instead of failing it). */
  truncated?: () => boolean;
}

/** The most files one bulk upload takes (docs/assets.md). */
export const BULK_UPLOAD_MAX = 20;

const tooLarge = (limit: number) => new AppError('PAYLOAD_TOO_LARGE', `The file may not be greater than ${Math.floor(limit / 1024)} kilobytes.`);

/** A file whose bytes (and thumbnail) are in the store but whose row is not written yet. */
interface StoredUpload {
  uuid: string;
  filename: string;
  originalFilename: string;
  mimeType: string;
  size: number;
  storageKey: string;
  metadata?: { width: number; height: number };
}

/** Keeps the chunks of a stream as they pass, so an image can be inspected without reading it back from the store. */
function collector(chunks: Buffer[]): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      chunks.push(chunk);
      done(null, chunk);
    },
  });
}

/**
 * Streams one upload into the store and, for images, records width and height and stores the
 * thumbnail. On any failure nothing of it is left in the store. `field` names the file in errors.
 */
async function storeUpload(ctx: Ctx, storage: AssetStorage, input: UploadInput, field: string): Promise<StoredUpload> {
  // The multipart name is the one string of an upload the request guard never sees.
  const badName = unstorableText(input.filename);
  if (badName) {
    input.stream.resume();
    throw validationFailed({ [field]: [`The file name ${badName}, which cannot be stored.`] });
  }
  const limit = ctx.services.config.UPLOAD_LIMIT_BYTES;
  const mimeType = acceptedMimeType(input.mimetype, input.filename);
  if (!mimeType) {
    input.stream.resume();
    throw validationFailed({ [field]: [`The file type ${input.mimetype || 'unknown'} is not allowed: upload an image, video, audio file or document.`] });
  }
  const uuid = randomUUID();
  const storageKey = `${ctx.project.uuid}/${uuid}`;
  const image = isProcessableImage(mimeType);
  const chunks: Buffer[] = [];
  let size: number;
  // The parser destroys a part whose body was cut short, possibly before it is read here; `pipe` on a
  // destroyed stream never ends, so the upload would wait for bytes that will not come.
  if (input.stream.destroyed) throw input.stream.errored ?? new AppError('BAD_REQUEST', 'The upload ended before the file was complete.');
  try {
    const body = image ? input.stream.pipe(collector(chunks)) : input.stream;
    if (image) input.stream.on('error', (err) => body.destroy(err));
    ({ size } = await storage.put(storageKey, body, { contentType: mimeType, maxBytes: limit }));
  } catch (err) {
    if (err instanceof TooLargeError || (err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(limit);
    throw err;
  }
  try {
    if (input.truncated?.()) throw tooLarge(limit);
    if (size === 0) throw validationFailed({ [field]: ['The file is empty.'] });
    let metadata: StoredUpload['metadata'];
    if (image) {
      const bytes = Buffer.concat(chunks);
      chunks.length = 0;
      const bounds = imageBounds(ctx.services.config);
      // The header alone says whether the image is within bounds; nothing is decoded before that.
      const size = await readImageSize(bytes, bounds).catch((err: unknown) => {
        throw err instanceof AppError && err.errors?.file ? validationFailed({ [field]: err.errors.file }) : err;
      });
      const thumb = thumbnailPlan(size);
      const thumbnail = await renderPool(ctx.services)
        .run(() => renderImage(bytes, thumb.size, thumb.format, bounds.maxPixels), 'upload')
        .catch(() => {
          throw validationFailed({ [field]: ['The file is not a readable image of its type.'] });
        });
      await storage.put(variantKey({ storageKey }, THUMBNAIL_NAME), thumbnail, { contentType: thumb.contentType, maxBytes: Number.MAX_SAFE_INTEGER });
      metadata = size;
    }
    // The original name is cut by code points: cutting UTF-16 units could split a surrogate pair.
    return { uuid, filename: safeFilename(input.filename), originalFilename: [...(input.filename || 'file')].slice(0, 255).join(''), mimeType, size, storageKey, metadata };
  } catch (err) {
    await storage.delete(storageKey);
    throw err;
  }
}

const rowData = (ctx: Ctx, f: StoredUpload) => ({ ...f, projectId: ctx.project.id });

/** Stores an uploaded file and its row. The bytes are removed again if the row cannot be written. */
export async function uploadAsset(ctx: Ctx, input: UploadInput): Promise<Asset> {
  authorize(ctx, 'create');
  const storage = assetStorage(ctx.services);
  const stored = await storeUpload(ctx, storage, input, 'file');
  try {
    return await ctx.db.asset.create({ data: rowData(ctx, stored) });
  } catch (err) {
    await storage.delete(stored.storageKey);
    throw err;
  }
}

/**
 * All or nothing: every file is stored first, then all rows are written in one transaction. If any
 * file is refused, or the parser or the database fails, every stored file is removed again.
 * Files are read one after the other, as a multipart body delivers them.
 */
export async function bulkUploadAssets(ctx: Ctx, files: AsyncIterable<UploadInput>): Promise<Asset[]> {
  authorize(ctx, 'create');
  const storage = assetStorage(ctx.services);
  const stored: StoredUpload[] = [];
  try {
    for await (const file of files) {
      if (stored.length >= BULK_UPLOAD_MAX) {
        file.stream.resume();
        throw validationFailed({ files: [`Upload at most ${BULK_UPLOAD_MAX} files at once.`] });
      }
      stored.push(await storeUpload(ctx, storage, file, `files.${stored.length}`));
    }
    if (stored.length === 0) throw validationFailed({ files: ['The files field is required: send one or more `files[]` parts.'] });
    return await ctx.db.$transaction(stored.map((f) => ctx.db.asset.create({ data: rowData(ctx, f) })));
  } catch (err) {
    await Promise.all(stored.map((f) => storage.delete(f.storageKey)));
    throw err;
  }
}
