import type SharpFactory from 'sharp';
import type { Config } from '../config.ts';
import { validationFailed } from '../errors.ts';

/** Image types sharp (libvips) decodes from its prebuilt binaries; other images (BMP) are stored as they are. */
const PROCESSABLE = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'image/tiff']);

export const isProcessableImage = (mimeType: string): boolean => PROCESSABLE.has(mimeType);

/** Formats a client may ask a variant in (`?format=`). */
export const OUTPUT_FORMATS = ['webp', 'avif', 'jpeg', 'png'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** What a variant is encoded as: the requested format, or the uploaded one (GIF and TIFF stay GIF and TIFF). */
export type RenderFormat = OutputFormat | 'gif' | 'tiff';

export const FORMAT_MIME: Record<RenderFormat, string> = {
  webp: 'image/webp',
  avif: 'image/avif',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  tiff: 'image/tiff',
};

const BY_MIME = new Map(Object.entries(FORMAT_MIME).map(([f, m]) => [m, f as RenderFormat]));

/** The format a processable image is re-encoded in when the request names none. */
export const formatOfMime = (mimeType: string): RenderFormat | undefined => BY_MIME.get(mimeType);

const FORMAT_NAME: Record<RenderFormat, string> = { webp: 'WebP', avif: 'AVIF', jpeg: 'JPEG', png: 'PNG', gif: 'GIF', tiff: 'TIFF' };

/**
 * The longest side each encoder writes (libvips refuses more with "too large for the … format");
 * PNG and TIFF have no limit that an accepted image can reach.
 */
export const FORMAT_MAX_SIDE: Partial<Record<RenderFormat, number>> = { webp: 16_383, avif: 16_384, jpeg: 65_535, gif: 65_535 };

/** Why `format` cannot hold a width × height image, or null when it can. */
export function formatLimitProblem(format: RenderFormat, size: Dimensions): string | null {
  const max = FORMAT_MAX_SIDE[format];
  if (max === undefined || (size.width <= max && size.height <= max)) return null;
  return `${FORMAT_NAME[format]} holds images of at most ${max} pixels on a side; this variant would be ${size.width} × ${size.height} pixels. Ask for a smaller width or another format.`;
}

/** Longest side of the thumbnail made at upload (`?variant=thumbnail`). */
export const THUMBNAIL_SIZE = 320;

/** Widest variant served; also the bound (on both sides) of a re-encode that names only a format. */
export const MAX_VARIANT_WIDTH = 4096;

export interface Dimensions {
  width: number;
  height: number;
}

/** What an image may be, checked from its header at upload and again before any variant is rendered. */
export interface ImageBounds {
  maxPixels: number;
  maxDimension: number;
  maxAspectRatio: number;
}

export const imageBounds = (config: Config): ImageBounds => ({
  maxPixels: config.IMAGE_MAX_PIXELS,
  maxDimension: config.IMAGE_MAX_DIMENSION,
  maxAspectRatio: config.IMAGE_MAX_ASPECT_RATIO,
});

/**
 * The first bound a width × height image exceeds, as a sentence naming it; null within all. The
 * pixel bound stops decompression bombs; the side and ratio bounds stop images that are cheap in
 * pixels but expensive to decode and resize (16 × 6,000,000 is under 100 MP and takes seconds).
 */
export function boundProblem(size: Dimensions, bounds: ImageBounds): string | null {
  const { width, height } = size;
  if (width * height > bounds.maxPixels) return `The image is larger than ${bounds.maxPixels} pixels.`;
  if (Math.max(width, height) > bounds.maxDimension) {
    return `The image is ${width} × ${height} pixels: at most ${bounds.maxDimension} pixels on a side are accepted.`;
  }
  const ratio = Math.max(width, height) / Math.min(width, height);
  if (ratio > bounds.maxAspectRatio) {
    return `The image is ${width} × ${height} pixels, an aspect ratio of ${Math.round(ratio * 10) / 10}:1: at most ${bounds.maxAspectRatio}:1 is accepted.`;
  }
  return null;
}

/**
 * Decoder options for untrusted bytes: `limitInputPixels` refuses decompression bombs from their
 * header before any pixel is decoded; only the first frame of an animation is read.
 */
// libvips loads on the first image, not at start: it is a large share of a cold start that most
// requests never need. The render-thread bound is applied as it loads.
let sharpModule: Promise<typeof SharpFactory> | undefined;
let renderThreads: number | undefined;
const loadSharp = (): Promise<typeof SharpFactory> =>
  (sharpModule ??= import('sharp').then((m) => {
    if (renderThreads !== undefined && m.default.concurrency() !== renderThreads) m.default.concurrency(renderThreads);
    return m.default;
  }));
const decoder = async (input: Buffer, maxPixels: number) => (await loadSharp())(input, { limitInputPixels: maxPixels, failOn: 'error' });

/**
 * Width and height as displayed (EXIF orientation applied), read from the header alone: nothing is
 * decoded. 422 on field `file` naming the bound an image exceeds, or saying the bytes are no image.
 */
export async function readImageSize(input: Buffer, bounds: ImageBounds): Promise<Dimensions> {
  let size: Dimensions;
  try {
    // No pixel limit here: sharp would refuse a bomb with a message of its own; boundProblem names it.
    const { width, height } = (await (await loadSharp())(input, { limitInputPixels: false, failOn: 'error' }).metadata()).autoOrient;
    if (!width || !height) throw new Error('no dimensions');
    size = { width, height };
  } catch {
    throw validationFailed({ file: ['The file is not a readable image of its type.'] });
  }
  const problem = boundProblem(size, bounds);
  if (problem) throw validationFailed({ file: [problem] });
  return size;
}

/** Thumbnail size: inside THUMBNAIL_SIZE × THUMBNAIL_SIZE, aspect ratio kept, never enlarged. */
export function thumbnailSize(source: Dimensions): Dimensions {
  const scale = Math.min(1, THUMBNAIL_SIZE / source.width, THUMBNAIL_SIZE / source.height);
  return { width: Math.max(1, Math.round(source.width * scale)), height: Math.max(1, Math.round(source.height * scale)) };
}

/**
 * The image (oriented as displayed) at exactly `size`, which the callers compute from the source's
 * size without ever enlarging it, so equal sizes and formats give equal bytes. A sharp failure is
 * thrown as it is: the caller knows whether the bytes came from a client or from the store.
 */
export async function renderImage(input: Buffer, size: Dimensions, format: RenderFormat, maxPixels: number): Promise<Buffer> {
  const img = (await decoder(input, maxPixels)).rotate().resize({ width: size.width, height: size.height, fit: 'fill' });
  if (format === 'webp') return img.webp({ quality: 80 }).toBuffer();
  if (format === 'avif') return img.avif({ quality: 50, effort: 4 }).toBuffer();
  if (format === 'jpeg') return img.jpeg({ quality: 82, mozjpeg: true }).toBuffer();
  if (format === 'png') return img.png().toBuffer();
  if (format === 'gif') return img.gif().toBuffer();
  return img.tiff().toBuffer();
}

/**
 * libvips threads one render may use. Process-wide in sharp: renders already run on libuv's
 * threadpool, and each would otherwise take a thread per core, leaving nothing to the requests
 * (compression, file reads) that share those cores.
 */
export function limitRenderThreads(threads: number): void {
  renderThreads = threads;
  if (sharpModule) void sharpModule.then((sharp) => sharp.concurrency() !== threads && sharp.concurrency(threads));
}
