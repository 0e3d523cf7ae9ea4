import type SharpFactory from 'sharp';
import { validationFailed } from '../errors.ts';

/** Image types sharp (libvips) decodes from its prebuilt binaries; other images (BMP) are stored as they are. */
const PROCESSABLE = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'image/tiff']);

export const isProcessableImage = (mimeType: string): boolean => PROCESSABLE.has(mimeType);

export const OUTPUT_FORMATS = ['webp', 'avif', 'jpeg', 'png'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const FORMAT_MIME: Record<OutputFormat, string> = { webp: 'image/webp', avif: 'image/avif', jpeg: 'image/jpeg', png: 'image/png' };

/** Longest side of the thumbnail made at upload (`?variant=thumbnail`). */
export const THUMBNAIL_SIZE = 320;

/** Widest variant served; also the bound of a re-encode that names only a format. */
export const MAX_VARIANT_WIDTH = 4096;

export interface ResizeSpec {
  /** Target width; the image is never enlarged. Absent = the original size, bounded by MAX_VARIANT_WIDTH. */
  width?: number;
  /** Absent = the uploaded format. */
  format?: OutputFormat;
}

/**
 * Decoder options for untrusted bytes: `limitInputPixels` refuses decompression bombs from their
 * header before any pixel is decoded; only the first frame of an animation is read.
 */
// libvips loads on the first image, not at start: it is a large share of a cold start that most
// requests never need.
let sharpModule: Promise<typeof SharpFactory> | undefined;
const decoder = async (input: Buffer, maxPixels: number) => {
  const sharp = await (sharpModule ??= import('sharp').then((m) => m.default));
  return sharp(input, { limitInputPixels: maxPixels, failOn: 'error' });
};

function unreadable(err: unknown, maxPixels: number) {
  const msg = err instanceof Error ? err.message : '';
  if (/pixel limit/i.test(msg)) return validationFailed({ file: [`The image is larger than ${maxPixels} pixels.`] });
  return validationFailed({ file: ['The file is not a readable image of its type.'] });
}

/** Width and height as displayed (EXIF orientation applied), and the thumbnail. 422 for a bomb or broken image. */
export async function inspectImage(input: Buffer, maxPixels: number): Promise<{ width: number; height: number; thumbnail: Buffer }> {
  try {
    const meta = await (await decoder(input, maxPixels)).metadata();
    const { width, height } = meta.autoOrient;
    if (!width || !height || width * height > maxPixels) throw new Error('Input image exceeds pixel limit');
    const thumbnail = await renderResized(input, { width: THUMBNAIL_SIZE, format: 'webp' }, maxPixels, THUMBNAIL_SIZE);
    return { width, height, thumbnail };
  } catch (err) {
    throw unreadable(err, maxPixels);
  }
}

/**
 * A resized and/or re-encoded copy. `height` bounds a thumbnail's other side too; variants keep the
 * aspect ratio and are bounded by width only.
 */
export async function renderResized(input: Buffer, spec: ResizeSpec, maxPixels: number, height?: number): Promise<Buffer> {
  let img = (await decoder(input, maxPixels))
    .rotate()
    .resize({ width: spec.width ?? MAX_VARIANT_WIDTH, height: height ?? (spec.width ? undefined : MAX_VARIANT_WIDTH), fit: 'inside', withoutEnlargement: true });
  if (spec.format === 'webp') img = img.webp({ quality: 80 });
  else if (spec.format === 'avif') img = img.avif({ quality: 50, effort: 4 });
  else if (spec.format === 'jpeg') img = img.jpeg({ quality: 82, mozjpeg: true });
  else if (spec.format === 'png') img = img.png();
  return img.toBuffer();
}
