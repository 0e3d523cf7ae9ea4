import { join } from 'node:path';
import type { Services } from '../context.ts';
import { LocalDiskStorage } from './storage/local.ts';
import { S3Storage } from './storage/s3.ts';
import type { AssetStorage } from './storage/types.ts';

export { TooLargeError, type AssetStorage } from './storage/types.ts';
export { LocalDiskStorage } from './storage/local.ts';

const byServices = new WeakMap<Services, AssetStorage>();

/**
 * The process's asset store, chosen by ASSET_STORAGE: `local` (DATA_DIR/assets) or `s3`.
 * Tests may install another with `setAssetStorage`.
 */
export function assetStorage(services: Services): AssetStorage {
  let s = byServices.get(services);
  if (!s) {
    const { config } = services;
    if (config.ASSET_STORAGE === 's3') {
      const s3 = new S3Storage(config);
      services.onClose.push(async () => s3.close());
      s = s3;
    } else {
      s = new LocalDiskStorage(join(config.DATA_DIR, 'assets'));
    }
    byServices.set(services, s);
  }
  return s;
}

export function setAssetStorage(services: Services, storage: AssetStorage): void {
  byServices.set(services, storage);
}
