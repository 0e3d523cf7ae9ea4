import { Readable, Transform } from 'node:stream';

/** Thrown by `put` when the stream is longer than `maxBytes`. */
export class TooLargeError extends Error {}

/**
 * Where asset bytes live. Keys are opaque: `<project uuid>/<asset uuid>` for the upload and
 * `<project uuid>/<asset uuid>~<variant>` for what is derived from it (thumbnail, resized copies);
 * metadata lives in the database. Local disk and any S3-compatible store implement the same calls.
 */
export interface AssetStorage {
  /** Stores the bytes under `key`; fails with TooLargeError past `maxBytes`, leaving nothing behind. Readers never see a partial object. */
  put(key: string, body: Readable | Buffer, opts: { contentType: string; maxBytes: number }): Promise<{ size: number }>;
  /** The stored bytes, or null when the key is unknown. */
  get(key: string): Promise<{ body: Readable; size: number } | null>;
  /** Removes the bytes under `key` and every variant derived from it; unknown keys are not an error. */
  delete(key: string): Promise<void>;
}

export const VARIANT_SEPARATOR = '~';

/** Counts bytes through a stream and fails it past `maxBytes` (the upload limit is enforced while streaming). */
export function byteLimit(maxBytes: number): Transform & { bytes(): number } {
  let size = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > maxBytes) done(new TooLargeError('The file is too large.'));
      else done(null, chunk);
    },
  });
  return Object.assign(t, { bytes: () => size });
}

export const asStream = (body: Readable | Buffer): Readable => (Buffer.isBuffer(body) ? Readable.from([body]) : body);
