import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { asStream, byteLimit, VARIANT_SEPARATOR, type AssetStorage } from './types.ts';

const SAFE_KEY = /^[0-9a-f-]{36}\/[0-9a-f-]{36}(~[a-z0-9.-]{1,40})?$/;

/** Files under `<DATA_DIR>/assets/<project>/<asset>[~variant]`, written to a temp name and renamed when complete. */
export class LocalDiskStorage implements AssetStorage {
  readonly root: string;
  constructor(root: string) {
    this.root = resolve(root);
  }

  private path(key: string): string {
    if (!SAFE_KEY.test(key)) throw new Error(`Invalid storage key: ${key}`);
    return join(this.root, key);
  }

  async put(key: string, body: Readable | Buffer, opts: { contentType: string; maxBytes: number }): Promise<{ size: number }> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    const temp = `${target}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2)}.part`;
    const counter = byteLimit(opts.maxBytes);
    try {
      await pipeline(asStream(body), counter, createWriteStream(temp));
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
    return { size: counter.bytes() };
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
    const p = this.path(key);
    await rm(p, { force: true });
    const prefix = `${basename(p)}${VARIANT_SEPARATOR}`;
    const siblings = await readdir(dirname(p)).catch(() => [] as string[]);
    await Promise.all(siblings.filter((n) => n.startsWith(prefix)).map((n) => rm(join(dirname(p), n), { force: true })));
  }
}
