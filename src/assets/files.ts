import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { Asset } from '../db/generated/prisma/client.ts';
import type { Services } from '../context.ts';
import { notFound, validationFailed } from '../errors.ts';
import { isUuid } from '../uuid.ts';
import { assetStorage, type AssetStorage } from './storage.ts';
import { boundProblem, imageBounds, isProcessableImage, readImageSize, renderImage, type Dimensions } from './images.ts';
import { parseVariantQuery, recordedSize, resizedPlan, THUMBNAIL, THUMBNAIL_NAME, thumbnailPlan, variantKey, type VariantPlan } from './variants.ts';
import { renderPool } from './render-pool.ts';

export interface AssetFile {
  body: Readable | Buffer;
  size: number;
  contentType: string;
  filename: string;
  /** Distinct per asset and stored variant; the bytes under a URL never change. */
  etag: string;
}

export interface OpenFileHooks {
  /**
   * Called before a variant that is not stored yet is rendered (not for stored ones, nor for
   * requests joining a render already running): the surface draws the client's render budget here.
   */
  beforeRender?: () => Promise<void>;
}

/** Renders running in this process by storage key, so concurrent first requests for one variant render once. */
const inflight = new Map<string, Promise<Buffer>>();

/**
 * The public bytes of a live asset (no auth: docs/assets.md) in the requested variant. Derived variants are
 * rendered on the first request, in the process's bounded render pool, and kept in the asset store
 * next to the original under the name of what they are (width and format), so replicas share them
 * and requests that produce the same output share one file.
 */
export async function openAssetFile(services: Services, uuid: string, query: Record<string, unknown>, hooks: OpenFileHooks = {}): Promise<AssetFile> {
  const request = parseVariantQuery(query);
  const asset = isUuid(uuid) ? await services.database.prisma.asset.findFirst({ where: { uuid: uuid.toLowerCase(), deletedAt: null } }) : null;
  if (!asset) throw notFound('Asset not found');
  const storage = assetStorage(services);
  if (request.kind === 'original') {
    const stored = await storage.get(asset.storageKey);
    if (!stored) throw notFound('Asset not found');
    return { ...stored, contentType: asset.mimeType, filename: asset.filename, etag: `"${asset.uuid}"` };
  }
  if (!isProcessableImage(asset.mimeType)) {
    throw validationFailed({ [request.kind === 'thumbnail' ? 'variant' : 'width']: ['Thumbnails and resized variants exist for JPEG, PNG, GIF, WebP, AVIF and TIFF images only.'] });
  }
  const file = (plan: Pick<VariantPlan, 'name' | 'format' | 'contentType' | 'renamed'>, body: Readable | Buffer, size: number): AssetFile => ({
    body,
    size,
    contentType: plan.contentType,
    filename: plan.renamed ? asset.filename.replace(/(\.[a-z0-9]{1,8})?$/i, `.${plan.format === 'jpeg' ? 'jpg' : plan.format}`) : asset.filename,
    etag: `"${asset.uuid}-${plan.name}"`,
  });
  // The thumbnail's name does not depend on the image's size: a stored one is served without it.
  if (request.kind === 'thumbnail') {
    const stored = await storage.get(variantKey(asset, THUMBNAIL_NAME));
    if (stored) return file(THUMBNAIL, stored.body, stored.size);
  }
  const bounds = imageBounds(services.config);
  const source = recordedSize(asset) ?? (await storedImageSize(storage, asset, bounds.maxPixels));
  // Images stored under looser bounds (or before there were any) are served as uploaded only.
  const problem = boundProblem(source, bounds);
  if (problem) throw validationFailed({ file: [`${problem} Only the original (no query) is served.`] });
  const plan = request.kind === 'thumbnail' ? thumbnailPlan(source) : resizedPlan(source, asset.mimeType, request.spec);
  const key = variantKey(asset, plan.name);
  const cached = request.kind === 'thumbnail' ? null : await storage.get(key);
  if (cached) return file(plan, cached.body, cached.size);

  let render = inflight.get(key);
  if (!render) {
    const pool = renderPool(services);
    // Refused before the budget is drawn, so a client told to come back later has not paid for it.
    if (!pool.hasRoom()) throw pool.busyError();
    await hooks.beforeRender?.();
    render = inflight.get(key);
    if (!render) {
      render = pool.run(() => renderVariant(services, storage, asset, key, plan), 'public').finally(() => inflight.delete(key));
      inflight.set(key, render);
    }
  }
  const bytes = await render;
  return file(plan, bytes, bytes.length);
}

async function loadOriginal(storage: AssetStorage, asset: Asset): Promise<Buffer> {
  const original = await storage.get(asset.storageKey);
  if (!original) throw notFound('Asset not found');
  return buffer(original.body);
}

/** For images stored before width and height were recorded: read from the stored header. */
async function storedImageSize(storage: AssetStorage, asset: Asset, maxPixels: number): Promise<Dimensions> {
  // Bounds are checked by the caller with the "served as uploaded" wording.
  return readImageSize(await loadOriginal(storage, asset), { maxPixels: Number.MAX_SAFE_INTEGER, maxDimension: Number.MAX_SAFE_INTEGER, maxAspectRatio: Number.MAX_SAFE_INTEGER }).catch(
    () => {
      throw unreadableStored(maxPixels);
    },
  );
}

const unreadableStored = (maxPixels: number) =>
  validationFailed({ file: [`The stored file does not decode as an image of its type (or exceeds ${maxPixels} pixels): only the original (no query) is served.`] });

async function renderVariant(services: Services, storage: AssetStorage, asset: Asset, key: string, plan: VariantPlan): Promise<Buffer> {
  const maxPixels = services.config.IMAGE_MAX_PIXELS;
  const original = await loadOriginal(storage, asset);
  const bytes = await renderImage(original, plan.size, plan.format, maxPixels).catch((err: unknown) => {
    // The bounds and format limits were checked from the size; what is left is damaged stored bytes.
    services.log.warn({ err, key }, 'stored image could not be rendered');
    throw unreadableStored(maxPixels);
  });
  // The rendered bytes are served even if keeping them fails; the next request renders again.
  await storage.put(key, bytes, { contentType: plan.contentType, maxBytes: Number.MAX_SAFE_INTEGER }).catch((err: unknown) => {
    services.log.warn({ err, key }, 'asset variant rendered but not stored');
  });
  return bytes;
}
