import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Services } from '../context.ts';

/** Thrown by `put` when the stream is longer than `maxBytes`. */
export class TooLargeError extends Error {}

/**
 * Where asset bytes live. Keys are opaque (`<project uuid>/<asset uuid>`); metadata lives in the
 * database. An S3-compatible store implements the same three calls.
 */
export interface AssetStorage {
  /** Stores the stream under `key`; fails with TooLargeError past `maxBytes`, leaving nothing behind. */
  put(key: string, body: Readable, opts: { contentType: string; maxBytes: number }): Promise<{ size: number }>;
  /** The stored bytes, or null when the key is unknown. */
  get(key: string): Promise<{ body: Readable; size: number } | null>;
  /** Removes the bytes; unknown keys are not an error. */
  delete(key: string): Promise<void>;
}

const SAFE_KEY = /^[0-9a-f-]{36}\/[0-9a-f-]{36}$/;

/** Files under `<DATA_DIR>/assets/<project>/<asset>`, written to a temp name and renamed when complete. */
export class LocalDiskStorage implements AssetStorage {
  readonly root: string;
  constructor(root: string) {
    this.root = resolve(root);
  }

  private path(key: string): string {
    if (!SAFE_KEY.test(key)) throw new Error(`Invalid storage key: ${key}`);
    return join(this.root, key);
  }

  async put(key: string, body: Readable, opts: { contentType: string; maxBytes: number }): Promise<{ size: number }> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    const temp = `${target}.${process.pid}.${Date.now()}.part`;
    let size = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (size > opts.maxBytes) done(new TooLargeError('The file is too large.'));
        else done(null, chunk);
      },
    });
    try {
      await pipeline(body, counter, createWriteStream(temp));
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
    return { size };
  }

  async get(key: string): Promise<{ body: Readable; size: number } | null> {
    const p = this.path(key);
    try {
      const s = await stat(p);
      return { body: createReadStream(p), size: s.size };
    } catch {
      return null;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}

const byServices = new WeakMap<Services, AssetStorage>();

/** The process's asset store (local disk under DATA_DIR/assets); tests may install another with `setAssetStorage`. */
export function assetStorage(services: Services): AssetStorage {
  let s = byServices.get(services);
  if (!s) {
    s = new LocalDiskStorage(join(services.config.DATA_DIR, 'assets'));
    byServices.set(services, s);
  }
  return s;
}

export function setAssetStorage(services: Services, storage: AssetStorage): void {
  byServices.set(services, storage);
}
