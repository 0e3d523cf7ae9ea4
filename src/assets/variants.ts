import type { Asset } from '../db/generated/prisma/client.ts';
import { ErrorBag, validationFailed } from '../errors.ts';
import { firstString } from '../text.ts';
import { VARIANT_SEPARATOR } from './storage/types.ts';
import {
  FORMAT_MIME,
  formatLimitProblem,
  formatOfMime,
  MAX_VARIANT_WIDTH,
  OUTPUT_FORMATS,
  thumbnailSize,
  type Dimensions,
  type OutputFormat,
  type RenderFormat,
} from './images.ts';

/**
 * Widths a variant is asked at: a requested width is rounded up to the next one, so one asset has
 * a bounded number of cached variants however many widths are asked for.
 */
export const VARIANT_WIDTHS = [16, 32, 48, 64, 96, 128, 160, 240, 320, 480, 640, 768, 960, 1024, 1280, 1536, 1920, 2048, 2560, 3200, 3840, 4096];

export interface ResizeSpec {
  /** Target width (rounded up to VARIANT_WIDTHS); absent = the original size, bounded by MAX_VARIANT_WIDTH on both sides. */
  width?: number;
  /** Absent = the uploaded format. */
  format?: OutputFormat;
}

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

/** What a variant request produces, computed from the source's size before anything is rendered. */
export interface VariantPlan {
  /** The stored name: the output's width and format, so requests that produce equal bytes share one file. */
  name: string;
  size: Dimensions;
  format: RenderFormat;
  contentType: string;
  /** Whether the served file name takes the format's extension (a format was asked for, or the thumbnail). */
  renamed: boolean;
}

/** The thumbnail's plan apart from its size (which follows from the source's). */
export const THUMBNAIL = { name: THUMBNAIL_NAME, format: 'webp', contentType: FORMAT_MIME.webp, renamed: true } as const satisfies Omit<VariantPlan, 'size'>;

export function thumbnailPlan(source: Dimensions): VariantPlan {
  return { ...THUMBNAIL, size: thumbnailSize(source) };
}

/**
 * The effective output of `?width=&format=`: the width clamped to the source's (never enlarged), the
 * height from the aspect ratio, the format asked for or the uploaded one. 422 on `format` when that
 * format cannot hold the output (WebP's 16383 px), instead of a render that fails.
 */
export function resizedPlan(source: Dimensions, mimeType: string, spec: ResizeSpec): VariantPlan {
  const width = spec.width
    ? Math.min(spec.width, source.width)
    : Math.max(1, Math.min(source.width, MAX_VARIANT_WIDTH, Math.floor((MAX_VARIANT_WIDTH * source.width) / source.height)));
  const size = { width, height: Math.max(1, Math.round((source.height * width) / source.width)) };
  const format = spec.format ?? formatOfMime(mimeType);
  if (!format) throw validationFailed({ format: [`Images of type ${mimeType} are served only as uploaded.`] });
  const problem = formatLimitProblem(format, size);
  if (problem) throw validationFailed({ format: [problem] });
  return { name: `w${width}.${format}`, size, format, contentType: FORMAT_MIME[format], renamed: spec.format !== undefined };
}

/** Width and height recorded at upload (as displayed); absent for images stored before they were recorded. */
export function recordedSize(asset: Pick<Asset, 'metadata'>): Dimensions | undefined {
  const m = asset.metadata as { width?: unknown; height?: unknown } | null;
  const ok = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n > 0;
  return m && ok(m.width) && ok(m.height) ? { width: m.width, height: m.height } : undefined;
}
