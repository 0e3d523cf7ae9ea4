import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { openPostgres } from '../../src/db/client.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createServices } from '../../src/services.ts';
import { buildServer } from '../../src/http/server.ts';
import type { TestApp } from '../helpers/app.ts';

export const S3_BUCKET = 'cms-assets';

/**
 * An S3-compatible server (s3rver, in this process, on a free loopback port, files in a temp dir),
 * with the bucket created, and the environment that points the app at it.
 */
export async function startS3(): Promise<{ env: Record<string, string>; keys(prefix?: string): Promise<string[]>; close(): Promise<void> }> {
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: mkdtempSync(join(tmpdir(), 'cms-s3-')), configureBuckets: [{ name: S3_BUCKET }] });
  const { port } = await server.run();
  const env = {
    ASSET_STORAGE: 's3',
    S3_BUCKET,
    S3_ENDPOINT: `http://127.0.0.1:${port}`,
    S3_REGION: 'us-east-1',
    // s3rver's fixed credentials.
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
  };
  const client = new S3Client({
    endpoint: env.S3_ENDPOINT,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  return {
    env,
    async keys(prefix) {
      const res = await client.send(new ListObjectsV2Command({ Bucket: S3_BUCKET, Prefix: prefix }));
      return (res.Contents ?? []).map((o) => o.Key ?? '').sort();
    },
    async close() {
      client.destroy();
      await server.close();
    },
  };
}

/** A second API process over the same database (and whatever asset store `env` names): another replica. */
export async function startReplica(of: TestApp, env: Record<string, string>) {
  const config = loadConfig(
    { LOG_LEVEL: 'silent', MIGRATE_ON_START: 'false', SEED_DEMO: 'false', WORKER_IN_PROCESS: 'false', RATE_LIMIT_PER_MINUTE: '100000', AUTH_CACHE_MS: '0', ...env },
    { DATABASE_URL: of.databaseUrl },
  );
  const database = openPostgres(of.databaseUrl!, 3);
  const services = await createServices(config, createLogger(config.LOG_LEVEL), { database, authCache: true });
  const app = await buildServer(services);
  await app.ready();
  return {
    app,
    async close() {
      await app.close();
      await services.close();
    },
  };
}
