import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';
import type { Services } from '../context.ts';
import { validationFailed } from '../errors.ts';
import { assetStorage } from '../assets/storage.ts';
import type { AssetRecord } from './records.ts';

/**
 * Asset bytes travel in a tar beside the NDJSON file (`project.ndjson` → `project.assets.tar`): one
 * member per asset, named by its uuid, in the order of the asset records, so export and import each
 * stream both files once, one asset in memory at a time. Derived variants (thumbnails, resized
 * copies) are not carried: the server makes them again on first request.
 */
export function archivePathFor(ndjsonPath: string): string {
  return `${ndjsonPath.replace(/\.ndjson$/i, '')}.assets.tar`;
}

export interface ArchiveWriter {
  add(asset: AssetRecord, storageKey: string): Promise<void>;
  close(): Promise<void>;
  /** Assets whose bytes the store did not have (listed, never fatal: the rest of the export is good). */
  missing: string[];
}

export async function openArchiveWriter(services: Services, path: string): Promise<ArchiveWriter> {
  const storage = assetStorage(services);
  const pack = tar.pack();
  const file = createWriteStream(path);
  await once(file, 'open');
  const done = pipeline(pack, file);
  const missing: string[] = [];
  return {
    missing,
    async add(asset, storageKey) {
      const stored = await storage.get(storageKey);
      if (!stored) {
        missing.push(asset.uuid);
        return;
      }
      const entry = pack.entry({ name: asset.uuid, size: stored.size, mtime: new Date(asset.updated_at) });
      await pipeline(stored.body, entry);
    },
    async close() {
      pack.finalize();
      await done;
    },
  };
}

/** Stores bytes fetched from elsewhere (a remote server) as an asset's file; false when there were none. */
export async function storeAssetFile(services: Services, asset: AssetRecord, storageKey: string, body: Readable | null): Promise<boolean> {
  if (!body) return false;
  await assetStorage(services).put(storageKey, body, { contentType: asset.mime_type, maxBytes: Math.max(services.config.UPLOAD_LIMIT_BYTES, asset.size) });
  return true;
}

export interface ArchiveReader {
  /** Stores the bytes of `asset` under `storageKey`; the archive must hold them next. */
  restore(asset: AssetRecord, storageKey: string): Promise<void>;
  /** Removes what was stored so far (the import failed: its rows are rolled back, so are its files). */
  discard(): Promise<void>;
  close(): Promise<void>;
}

export function openArchiveReader(services: Services, path: string): ArchiveReader {
  const storage = assetStorage(services);
  const extract = tar.extract();
  const source = createReadStream(path);
  const feeding = pipeline(source, extract).catch((err: Error) => {
    throw validationFailed({ assets: [`Cannot read the asset archive ${path}: ${err.message}`] });
  });
  feeding.catch(() => {});
  const entries = extract[Symbol.asyncIterator]();
  let pending: tar.Entry | null = null;
  const stored: string[] = [];
  const maxBytes = services.config.UPLOAD_LIMIT_BYTES;
  return {
    async restore(asset, storageKey) {
      if (!pending) {
        const next = await entries.next().catch(async (err: Error) => {
          await feeding;
          throw validationFailed({ assets: [`Cannot read the asset archive ${path}: ${err.message}`] });
        });
        pending = next.done ? null : next.value;
      }
      // An asset the source store lacked has no member: it stays without bytes here too.
      if (!pending || pending.header.name !== asset.uuid) return;
      const entry = pending;
      pending = null;
      await storage.put(storageKey, entry, { contentType: asset.mime_type, maxBytes: Math.max(maxBytes, asset.size) });
      stored.push(storageKey);
    },
    async discard() {
      for (const key of stored) await storage.delete(key).catch(() => {});
    },
    async close() {
      source.destroy();
    },
  };
}
