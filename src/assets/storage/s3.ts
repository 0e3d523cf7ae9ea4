import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import type { Config } from '../../config.ts';
import { asStream, byteLimit, VARIANT_SEPARATOR, type AssetStorage } from './types.ts';

type S3Config = Pick<Config, 'S3_BUCKET' | 'S3_ENDPOINT' | 'S3_REGION' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY' | 'S3_FORCE_PATH_STYLE'>;

const isMissing = (err: unknown) =>
  err instanceof S3ServiceException && (err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata.httpStatusCode === 404);

/**
 * Asset bytes in an S3-compatible bucket, so every API replica serves every upload. An object
 * becomes visible only when its upload completes (S3 semantics), like the local store's rename.
 */
export class S3Storage implements AssetStorage {
  readonly bucket: string;
  private readonly client: S3Client;

  constructor(config: S3Config) {
    if (!config.S3_BUCKET) throw new Error('S3_BUCKET is required for ASSET_STORAGE=s3');
    this.bucket = config.S3_BUCKET;
    this.client = new S3Client({
      region: config.S3_REGION,
      endpoint: config.S3_ENDPOINT,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      credentials:
        config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
          ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY }
          : undefined,
      // The SDK's default since 2025 adds CRC32 trailers (aws-chunked bodies) to every upload, which many
      // S3-compatible stores reject; checksums are sent where the API requires them only.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, body: Readable | Buffer, opts: { contentType: string; maxBytes: number }): Promise<{ size: number }> {
    const counter = byteLimit(opts.maxBytes);
    const source = asStream(body);
    source.on('error', (err) => counter.destroy(err));
    // Multipart for large bodies of unknown length; a failed upload is aborted, so no part remains.
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: source.pipe(counter), ContentType: opts.contentType },
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      // A limit hit mid-stream surfaces as the stream's error; make sure no object was left either way.
      await this.deleteOne(key).catch(() => undefined);
      throw err;
    }
    return { size: counter.bytes() };
  }

  async get(key: string): Promise<{ body: Readable; size: number } | null> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!res.Body) return null;
      return { body: res.Body as Readable, size: Number(res.ContentLength ?? 0) };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.deleteOne(key);
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: `${key}${VARIANT_SEPARATOR}`, ContinuationToken: token }),
      );
      // One DeleteObject per key: DeleteObjects needs a Content-MD5 that several compatible stores handle differently.
      await Promise.all((page.Contents ?? []).map((o) => (o.Key ? this.deleteOne(o.Key) : undefined)));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  private async deleteOne(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
  }

  close(): void {
    this.client.destroy();
  }
}
