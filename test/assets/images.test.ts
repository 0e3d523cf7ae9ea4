import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { imageOf, upload } from './helpers.ts';
import { assetStorage, setAssetStorage, type AssetStorage } from '../../src/assets/storage.ts';

describe('images: dimensions, thumbnail, resized variants', () => {
  let t: TestApp;
  let p: TestProject;
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-assets-img-'));
  const filesOf = (project: TestProject) => {
    const dir = join(dataDir, 'assets', project.uuid);
    return existsSync(dir) ? readdirSync(dir).sort() : [];
  };
  const get = (url: string) => t.app.inject({ method: 'GET', url });

  beforeAll(async () => {
    // 1200x900 = 1.08 MP passes; the 2000x2000 image of the bomb test does not.
    t = await startTestApp({ env: { DATA_DIR: dataDir, UPLOAD_LIMIT_BYTES: String(4 * 1_048_576), IMAGE_MAX_PIXELS: '2000000' } });
    p = await t.project();
  });
  afterAll(() => t.close());

  it('an uploaded image gets width and height in metadata and a webp thumbnail at thumbnail_url', async () => {
    const png = await imageOf(1200, 900);
    const res = await upload(t, p.headers, { filename: 'wide.png', contentType: 'image/png', content: png });
    expect(res.status).toBe(201);
    expect(res.body.metadata).toEqual({ width: 1200, height: 900 });
    expect(res.body.thumbnail_url).toBe(`${res.body.url}?variant=thumbnail`);
    const thumb = await get(res.body.thumbnail_url);
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/webp');
    expect(thumb.headers['content-disposition']).toBe('inline; filename="wide.webp"');
    expect(await sharp(thumb.rawPayload).metadata()).toMatchObject({ format: 'webp', width: 320, height: 240 });
    // Made at upload, next to the original.
    expect(filesOf(p)).toEqual([res.body.uuid, `${res.body.uuid}~thumbnail.webp`]);

    const original = await get(res.body.original_url);
    expect(original.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(original.rawPayload, png)).toBe(0);
    expect(original.headers.etag).not.toBe(thumb.headers.etag);
  });

  it('EXIF orientation is applied: a portrait photo stored sideways reports its displayed size', async () => {
    const jpeg = await sharp({ create: { width: 400, height: 200, channels: 3, background: '#336699' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const res = await upload(t, p.headers, { filename: 'portrait.jpg', contentType: 'image/jpeg', content: jpeg });
    expect(res.body.metadata).toEqual({ width: 200, height: 400 });
    const thumb = await get(res.body.thumbnail_url);
    expect(await sharp(thumb.rawPayload).metadata()).toMatchObject({ width: 160, height: 320 });
  });

  it('?width=&format= renders a resized, re-encoded copy once (width rounded up to the allow-list) and serves it from the store after', async () => {
    const q = await t.project();
    const res = await upload(t, q.headers, { filename: 'photo.png', contentType: 'image/png', content: await imageOf(1200, 900) });
    const webp = await get(`${res.body.url}?width=500&format=webp`);
    expect(webp.statusCode).toBe(200);
    expect(webp.headers['content-type']).toBe('image/webp');
    expect(webp.headers['cache-control']).toContain('immutable');
    expect(await sharp(webp.rawPayload).metadata()).toMatchObject({ format: 'webp', width: 640, height: 480 });
    expect(filesOf(q)).toContain(`${res.body.uuid}~w640.webp`);

    // The second request reads the stored copy: same bytes, no new file.
    const again = await get(`${res.body.url}?width=640&format=webp`);
    expect(Buffer.compare(again.rawPayload, webp.rawPayload)).toBe(0);
    expect(again.headers.etag).toBe(webp.headers.etag);

    const avif = await get(`${res.body.url}?width=100&format=avif`);
    expect(avif.headers['content-type']).toBe('image/avif');
    expect(await sharp(avif.rawPayload).metadata()).toMatchObject({ format: 'heif', width: 128 });
    // Width only keeps the uploaded format; never enlarged past the original.
    const sameFormat = await get(`${res.body.url}?width=4096`);
    expect(sameFormat.headers['content-type']).toBe('image/png');
    expect(await sharp(sameFormat.rawPayload).metadata()).toMatchObject({ format: 'png', width: 1200, height: 900 });
    const formatOnly = await get(`${res.body.url}?format=jpeg`);
    expect(formatOnly.headers['content-disposition']).toBe('inline; filename="photo.jpg"');
    expect(await sharp(formatOnly.rawPayload).metadata()).toMatchObject({ format: 'jpeg', width: 1200 });
    expect(filesOf(q)).toEqual(
      [res.body.uuid, `${res.body.uuid}~thumbnail.webp`, `${res.body.uuid}~w640.webp`, `${res.body.uuid}~w128.avif`, `${res.body.uuid}~w1200.png`, `${res.body.uuid}~w1200.jpeg`].sort(),
    );

    // Force delete takes the variants with it.
    await t.request({ method: 'DELETE', url: `/api/files/${res.body.uuid}?force=1`, headers: q.headers });
    expect(filesOf(q)).toEqual([]);
  });

  it('bad variant parameters answer 422 naming the parameter', async () => {
    const res = await upload(t, p.headers, { filename: 'small.png', contentType: 'image/png', content: await imageOf(50, 40) });
    const cases: Array<[string, string]> = [
      ['width=0', 'width'],
      ['width=4097', 'width'],
      ['width=abc', 'width'],
      ['width=1.5', 'width'],
      ['format=gif', 'format'],
      ['format=svg&width=10', 'format'],
      ['variant=large', 'variant'],
      ['variant=thumbnail&width=100', 'variant'],
    ];
    for (const [query, key] of cases) {
      const r = await get(`${res.body.url}?${query}`);
      expect(r.statusCode, query).toBe(422);
      expect(Object.keys(JSON.parse(r.body).errors), query).toEqual([key]);
    }
    const one = await get(`${res.body.url}?width=1&format=png`);
    expect(await sharp(one.rawPayload).metadata()).toMatchObject({ width: 16, height: 13 });
  });

  it('non-images are unaffected: no dimensions, no thumbnail, and variants are refused with 422', async () => {
    const res = await upload(t, p.headers, { filename: 'doc.pdf', contentType: 'application/pdf', content: '%PDF-1.4 hello' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ metadata: null, thumbnail_url: null });
    expect((await get(res.body.url)).body).toBe('%PDF-1.4 hello');
    expect((await get(`${res.body.url}?variant=original`)).body).toBe('%PDF-1.4 hello');
    const thumb = await get(`${res.body.url}?variant=thumbnail`);
    expect(thumb.statusCode).toBe(422);
    expect(JSON.parse(thumb.body).errors.variant[0]).toMatch(/images only/);
    expect((await get(`${res.body.url}?width=100`)).statusCode).toBe(422);
    // BMP is an accepted image type sharp cannot decode: stored as is, without a thumbnail.
    const bmp = await upload(t, p.headers, { filename: 'old.bmp', contentType: 'image/bmp', content: Buffer.from('BM not really') });
    expect(bmp.status).toBe(201);
    expect(bmp.body).toMatchObject({ metadata: null, thumbnail_url: null });
  });

  it('refuses a decompression bomb and a broken image with 422, storing nothing', async () => {
    const q = await t.project();
    // 2000x2000 = 4 MP, over IMAGE_MAX_PIXELS=2 MP; a flat colour compresses to a few kilobytes.
    const bomb = await imageOf(2000, 2000);
    expect(bomb.length).toBeLessThan(100_000);
    const res = await upload(t, q.headers, { filename: 'bomb.png', contentType: 'image/png', content: bomb });
    expect(res.status).toBe(422);
    expect(res.body.errors.file[0]).toBe('The image is larger than 2000000 pixels.');
    const broken = await upload(t, q.headers, { filename: 'broken.jpg', contentType: 'image/jpeg', content: Buffer.from('not a jpeg at all') });
    expect(broken.status).toBe(422);
    expect(broken.body.errors.file[0]).toMatch(/not a readable image/);
    expect(await t.database.prisma.asset.count({ where: { projectId: q.id } })).toBe(0);
    expect(filesOf(q)).toEqual([]);
  });

  it('an image stored before thumbnails existed gets its thumbnail rendered on the first request', async () => {
    const q = await t.project();
    const res = await upload(t, q.headers, { filename: 'legacy.png', contentType: 'image/png', content: await imageOf(600, 300) });
    const { rm } = await import('node:fs/promises');
    await rm(join(dataDir, 'assets', q.uuid, `${res.body.uuid}~thumbnail.webp`));
    const thumb = await get(res.body.thumbnail_url);
    expect(thumb.statusCode).toBe(200);
    expect(await sharp(thumb.rawPayload).metadata()).toMatchObject({ width: 320, height: 160 });
    expect(filesOf(q)).toContain(`${res.body.uuid}~thumbnail.webp`);
  });

  it('a variant is still served when keeping it in the store fails, and stored on a later request', async () => {
    const q = await t.project();
    const res = await upload(t, q.headers, { filename: 'flaky.png', contentType: 'image/png', content: await imageOf(300, 300) });
    const real = assetStorage(t.services);
    const refusing: AssetStorage = {
      put: (key, body, opts) => (key.includes('~w') ? Promise.reject(new Error('store down')) : real.put(key, body, opts)),
      get: (key) => real.get(key),
      delete: (key) => real.delete(key),
    };
    setAssetStorage(t.services, refusing);
    try {
      const served = await get(`${res.body.url}?width=100&format=webp`);
      expect(served.statusCode).toBe(200);
      expect(await sharp(served.rawPayload).metadata()).toMatchObject({ format: 'webp', width: 128 });
      expect(filesOf(q)).not.toContain(`${res.body.uuid}~w128.webp`);
    } finally {
      setAssetStorage(t.services, real);
    }
    expect((await get(`${res.body.url}?width=100&format=webp`)).statusCode).toBe(200);
    expect(filesOf(q)).toContain(`${res.body.uuid}~w128.webp`);
  });

  it('many concurrent first requests (more than the render slots, some for the same variant) are all answered correctly', async () => {
    const q = await t.project();
    const res = await upload(t, q.headers, { filename: 'busy.png', contentType: 'image/png', content: await imageOf(900, 600) });
    const widths = [16, 32, 48, 64, 96, 128, 160, 240, 320, 480, 640, 768];
    const answers = await Promise.all([...widths, ...widths].map((w) => get(`${res.body.url}?width=${w}&format=webp`)));
    for (const [i, a] of answers.entries()) {
      expect(a.statusCode).toBe(200);
      expect((await sharp(a.rawPayload).metadata()).width).toBe(widths[i % widths.length]);
    }
    expect(filesOf(q).filter((n) => n.includes('~w'))).toHaveLength(widths.length);
  });
});
