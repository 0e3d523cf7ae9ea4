import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { Asset } from '../db/generated/prisma/client.ts';
import type { Services } from '../context.ts';
import { ErrorBag, notFound, validationFailed } from '../errors.ts';
import { isUuid } from '../content/types.ts';
import { firstString } from '../content/query.ts';
import { assetStorage } from './storage.ts';
import { VARIANT_SEPARATOR } from './storage/types.ts';
import { FORMAT_MIME, isProcessableImage, MAX_VARIANT_WIDTH, OUTPUT_FORMATS, renderResized, THUMBNAIL_SIZE, type OutputFormat, type ResizeSpec } from './images.ts';

/**
 * Widths a variant is rendered at: a requested width is rounded up to the next one, so one asset has
 * a bounded number of cached variants however many widths are asked for.
 */
export const VARIANT_WIDTHS = [16, 32, 48, 64, 96, 128, 160, 240, 320, 480, 640, 768, 960, 1024, 1280, 1536, 1920, 2048, 2560, 3200, 3840, 4096];

export type VariantRequest = { kind: 'original' } | { kind: 'thumbnail' } | { kind: 'resized'; spec: ResizeSpec };

/** `?variant=thumbnail|original`, or `?width=&format=`; 422 naming the parameter otherwise. */
export function parseVariantQuery(q: Record<string, unknown>): VariantRequest {
  const bag = new ErrorBag();
  const variant = firstString(q.variant);
  const widthText = firstString(q.width);
  const formatText = firstString(q.format)?.toLowerCase();
  if (variant !== undefined && variant !== '' && variant !== 'thumbnail' && variant !== 'original') bag.add('variant', 'The variant must be thumbnail or original.');
  let width: number | undefined;
  if (widthText !== undefined) {
    if (!/^\d{1,5}$/.test(widthText) || Number(widthText) < 1 || Number(widthText) > MAX_VARIANT_WIDTH) {
      bag.add('width', `The width must be a whole number from 1 to ${MAX_VARIANT_WIDTH}.`);
    } else {
      width = VARIANT_WIDTHS.find((w) => w >= Number(widthText));
    }
  }
  if (formatText !== undefined && !(OUTPUT_FORMATS as readonly string[]).includes(formatText)) bag.add('format', `The format must be one of ${OUTPUT_FORMATS.join(', ')}.`);
  const resized = widthText !== undefined || formatText !== undefined;
  if (resized && (variant === 'thumbnail' || variant === 'original')) bag.add('variant', 'The variant cannot be combined with width or format.');
  bag.throwIfAny();
  if (variant === 'thumbnail') return { kind: 'thumbnail' };
  if (resized) return { kind: 'resized', spec: { width, format: formatText as OutputFormat | undefined } };
  return { kind: 'original' };
}

/** Storage key of a derived file: `<asset key>~<name>`. */
export const variantKey = (asset: Pick<Asset, 'storageKey'>, name: string) => `${asset.storageKey}${VARIANT_SEPARATOR}${name}`;

export const THUMBNAIL_NAME = 'thumbnail.webp';

const variantName = (spec: ResizeSpec) => `w${spec.width ?? 'full'}.${spec.format ?? 'src'}`;

export interface AssetFile {
  body: Readable | Buffer;
  size: number;
  contentType: string;
  filename: string;
  /** Distinct per asset and variant; the bytes under a URL never change. */
  etag: string;
}

const inflight = new Map<string, Promise<Buffer>>();

/**
 * Renders at once per process. Each holds the original in memory, and the file route is public: many
 * first requests for different variants wait here instead of loading every original at the same time.
 */
const MAX_RENDERS = 4;
let rendering = 0;
const waiting: Array<() => void> = [];

async function withRenderSlot<T>(work: () => Promise<T>): Promise<T> {
  if (rendering >= MAX_RENDERS) await new Promise<void>((resolve) => waiting.push(resolve));
  else rendering++;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else rendering--;
  }
}

/**
 * The public bytes of a live asset (no auth: facts §7) in the requested variant. Derived variants are
 * rendered on the first request and kept in the asset store next to the original, so replicas share
 * them; concurrent first requests in one process render once.
 */
export async function openAssetFile(services: Services, uuid: string, query: Record<string, unknown>): Promise<AssetFile> {
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
  const spec: ResizeSpec = request.kind === 'thumbnail' ? { width: THUMBNAIL_SIZE, format: 'webp' } : request.spec;
  const name = request.kind === 'thumbnail' ? THUMBNAIL_NAME : variantName(spec);
  const contentType = spec.format ? FORMAT_MIME[spec.format] : asset.mimeType;
  const filename = spec.format ? asset.filename.replace(/(\.[a-z0-9]{1,8})?$/i, `.${spec.format === 'jpeg' ? 'jpg' : spec.format}`) : asset.filename;
  const etag = `"${asset.uuid}-${name}"`;
  const key = variantKey(asset, name);
  const cached = await storage.get(key);
  if (cached) return { ...cached, contentType, filename, etag };

  let render = inflight.get(key);
  if (!render) {
    render = withRenderSlot(async () => {
      const original = await storage.get(asset.storageKey);
      if (!original) throw notFound('Asset not found');
      const bytes = await renderResized(await buffer(original.body), spec, services.config.IMAGE_MAX_PIXELS, request.kind === 'thumbnail' ? THUMBNAIL_SIZE : undefined).catch(() => {
        throw validationFailed({ file: ['The stored image could not be read.'] });
      });
      // The rendered bytes are served even if keeping them fails; the next request renders again.
      await storage.put(key, bytes, { contentType, maxBytes: Number.MAX_SAFE_INTEGER }).catch((err: unknown) => {
        services.log.warn({ err, key }, 'asset variant rendered but not stored');
      });
      return bytes;
    }).finally(() => inflight.delete(key));
    inflight.set(key, render);
  }
  const bytes = await render;
  return { body: bytes, size: bytes.length, contentType, filename, etag };
}
