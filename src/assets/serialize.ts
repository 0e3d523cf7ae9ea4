import type { Asset } from '../db/generated/prisma/client.ts';
import type { AssetResource } from './resource.ts';
import { isProcessableImage } from './images.ts';

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/** "512 B", "1.0 KB", "3.4 MB" (docs/assets.md: size is human readable). */
export function humanSize(bytes: number): string {
  let n = bytes;
  let unit = 0;
  while (n >= 1024 && unit < UNITS.length - 1) {
    n /= 1024;
    unit++;
  }
  return unit === 0 ? `${n} B` : `${n.toFixed(1)} ${UNITS[unit]}`;
}

/** Path of the public file route; the filename segment is cosmetic (browsers save under it). */
export function assetPath(a: Pick<Asset, 'uuid' | 'filename'>): string {
  return `/files/${a.uuid}/${encodeURIComponent(a.filename)}`;
}

/**
 * Asset object (docs/assets.md). URLs are absolute when PUBLIC_URL is configured, root-relative otherwise
 * (the service cannot know its public origin behind a proxy). `thumbnail_url` is set for the image
 * types that get thumbnails and resized variants (src/assets/images.ts), null for every other file.
 */
export function serializeAsset(a: Asset, publicUrl?: string): AssetResource {
  const url = `${(publicUrl ?? '').replace(/\/$/, '')}${assetPath(a)}`;
  return {
    id: a.id,
    uuid: a.uuid,
    filename: a.filename,
    original_filename: a.originalFilename,
    mime_type: a.mimeType,
    size: humanSize(a.size),
    bytes: a.size,
    url,
    original_url: `${url}?variant=original`,
    // Made at upload; for images stored before thumbnails existed, rendered on the first request.
    thumbnail_url: isProcessableImage(a.mimeType) ? `${url}?variant=thumbnail` : null,
    metadata: (a.metadata as Record<string, unknown> | null) ?? null,
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt.toISOString(),
  };
}
