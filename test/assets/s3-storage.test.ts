import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { assetStorage, setAssetStorage, type AssetStorage } from '../../src/assets/storage.ts';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { bulkUpload, imageOf, upload } from './helpers.ts';
import { startReplica, startS3 } from './s3-server.ts';

describe('assets on an S3-compatible store (ASSET_STORAGE=s3)', () => {
  let s3: Awaited<ReturnType<typeof startS3>>;
  let t: TestApp;
  let p: TestProject;
  let replica: Awaited<ReturnType<typeof startReplica>>;

  beforeAll(async () => {
    s3 = await startS3();
    // Separate DATA_DIRs: if anything still went to local disk, the other replica could not see it.
    t = await startTestApp({ env: { ...s3.env, DATA_DIR: mkdtempSync(join(tmpdir(), 'cms-s3-a-')), UPLOAD_LIMIT_BYTES: String(1_048_576) } });
    replica = await startReplica(t, { ...s3.env, DATA_DIR: mkdtempSync(join(tmpdir(), 'cms-s3-b-')), UPLOAD_LIMIT_BYTES: String(1_048_576) });
    p = await t.project();
  });
  afterAll(async () => {
    await replica?.close();
    await t?.close();
    await s3?.close();
  });

  it('stores the upload and its thumbnail as objects and serves them back', async () => {
    const png = await imageOf(800, 400);
    const res = await upload(t, p.headers, { filename: 'banner.png', contentType: 'image/png', content: png });
    expect(res.status).toBe(201);
    expect(res.body.metadata).toEqual({ width: 800, height: 400 });
    const key = `${p.uuid}/${res.body.uuid}`;
    expect(await s3.keys(key)).toEqual([key, `${key}~thumbnail.webp`]);
    const file = await t.app.inject({ method: 'GET', url: res.body.url });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-length']).toBe(String(png.length));
    expect(Buffer.compare(file.rawPayload, png)).toBe(0);
  });

  it('two replicas sharing the database and the bucket serve each other\'s uploads and variants', async () => {
    const png = await imageOf(1000, 500);
    const up = await upload(t, p.headers, { filename: 'shared.png', contentType: 'image/png', content: png });
    const key = `${p.uuid}/${up.body.uuid}`;

    const onB = await replica.app.inject({ method: 'GET', url: up.body.url });
    expect(onB.statusCode).toBe(200);
    expect(Buffer.compare(onB.rawPayload, png)).toBe(0);
    const thumbOnB = await replica.app.inject({ method: 'GET', url: up.body.thumbnail_url });
    expect(await sharp(thumbOnB.rawPayload).metadata()).toMatchObject({ format: 'webp', width: 320 });
    const api = await replica.app.inject({ method: 'GET', url: `/api/files/${up.body.uuid}`, headers: p.headers });
    expect(JSON.parse(api.body).uuid).toBe(up.body.uuid);

    // A variant rendered by B is cached in the bucket and served by A from there.
    const variantB = await replica.app.inject({ method: 'GET', url: `${up.body.url}?width=300&format=webp` });
    expect(variantB.statusCode).toBe(200);
    expect(await s3.keys(key)).toContain(`${key}~w320.webp`);
    const variantA = await t.app.inject({ method: 'GET', url: `${up.body.url}?width=320&format=webp` });
    expect(Buffer.compare(variantA.rawPayload, variantB.rawPayload)).toBe(0);

    // An upload to B is served by A; a forced delete on A removes the object and its variants for both.
    const upB = await upload({ ...t, app: replica.app }, p.headers, { filename: 'from-b.txt', contentType: 'text/plain', content: 'written by B' });
    expect(upB.status).toBe(201);
    expect((await t.app.inject({ method: 'GET', url: upB.body.url })).body).toBe('written by B');
    const del = await t.request({ method: 'DELETE', url: `/api/files/${up.body.uuid}?force=1`, headers: p.headers });
    expect(del.status).toBe(200);
    expect(await s3.keys(key)).toEqual([]);
    expect((await replica.app.inject({ method: 'GET', url: up.body.url })).statusCode).toBe(404);
  });

  it('an upload whose row cannot be written leaves no object behind', async () => {
    const q = await t.project();
    // The database refuses this one insert, after the bytes are in the bucket.
    await t.database.prisma.$executeRawUnsafe(`
      CREATE OR REPLACE FUNCTION refuse_asset() RETURNS trigger AS $$
      BEGIN IF NEW.original_filename = 'refused.png' THEN RAISE EXCEPTION 'refused by test'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
    await t.database.prisma.$executeRawUnsafe(`CREATE TRIGGER refuse_asset BEFORE INSERT ON assets FOR EACH ROW EXECUTE FUNCTION refuse_asset()`);
    try {
      const res = await upload(t, q.headers, { filename: 'refused.png', contentType: 'image/png', content: await imageOf(64, 64) });
      expect(res.status).toBe(500);
      const bulk = await bulkUpload(t, q.headers, [
        { filename: 'fine.txt', contentType: 'text/plain', content: 'fine' },
        { filename: 'refused.png', contentType: 'image/png', content: await imageOf(64, 64) },
      ]);
      expect(bulk.status).toBe(500);
    } finally {
      await t.database.prisma.$executeRawUnsafe('DROP TRIGGER refuse_asset ON assets');
    }
    expect(await t.database.prisma.asset.count({ where: { projectId: q.id } })).toBe(0);
    expect(await s3.keys(`${q.uuid}/`)).toEqual([]);
  });

  it('a store that fails half-way (thumbnail write) or a file over the limit leaves neither a row nor an object', async () => {
    const q = await t.project();
    const real = assetStorage(t.services);
    const failing: AssetStorage = {
      put: (key, body, opts) => (key.includes('~thumbnail') ? Promise.reject(new Error('store down')) : real.put(key, body, opts)),
      get: (key) => real.get(key),
      delete: (key) => real.delete(key),
    };
    setAssetStorage(t.services, failing);
    try {
      const res = await upload(t, q.headers, { filename: 'half.png', contentType: 'image/png', content: await imageOf(64, 64) });
      expect(res.status).toBe(500);
    } finally {
      setAssetStorage(t.services, real);
    }
    const big = await upload(t, q.headers, { filename: 'big.txt', contentType: 'text/plain', content: Buffer.alloc(1_048_576 + 10, 97) });
    expect(big.status).toBe(413);
    const bulk = await bulkUpload(t, q.headers, [
      { filename: 'a.txt', contentType: 'text/plain', content: 'a' },
      { filename: 'b.png', contentType: 'image/png', content: await imageOf(32, 32) },
      { filename: 'c.exe', contentType: 'application/x-msdownload', content: 'MZ' },
    ]);
    expect(bulk.status).toBe(422);
    expect(await t.database.prisma.asset.count({ where: { projectId: q.id } })).toBe(0);
    expect(await s3.keys(`${q.uuid}/`)).toEqual([]);
  });

  it('ASSET_STORAGE=s3 needs S3_BUCKET, and the two key variables go together', () => {
    expect(() => loadConfig({ ASSET_STORAGE: 's3' })).toThrow(/S3_BUCKET must be set when ASSET_STORAGE=s3/);
    expect(() => loadConfig({ ASSET_STORAGE: 'ftp' })).toThrow(/ASSET_STORAGE must be local or s3/);
    expect(() => loadConfig({ ASSET_STORAGE: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'k' })).toThrow(/S3_SECRET_ACCESS_KEY/);
    expect(() => loadConfig({ S3_ENDPOINT: 'not a url' })).toThrow(/S3_ENDPOINT/);
    expect(loadConfig({})).toMatchObject({ ASSET_STORAGE: 'local', S3_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: false });
  });
});
