import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { bulkUpload, imageOf, upload } from './helpers.ts';
import { assetStorage, setAssetStorage, type AssetStorage } from '../../src/assets/storage.ts';

/** Image work bounded by what it is worth: upload bounds, variants keyed by their output, the render pool and budget. */

const variantsIn = (dataDir: string, project: TestProject, uuid: string) => {
  const dir = join(dataDir, 'assets', project.uuid);
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith(`${uuid}~w`)).sort() : [];
};

describe('image bounds at upload and variants keyed by what they produce (default bounds)', () => {
  let t: TestApp;
  let p: TestProject;
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-img-bounds-'));

  beforeAll(async () => {
    t = await startTestApp({ env: { DATA_DIR: dataDir } });
    p = await t.project();
  });
  afterAll(() => t.close());

  it('an image taller than IMAGE_MAX_DIMENSION or thinner than IMAGE_MAX_ASPECT_RATIO is refused with a 422 naming the bound, storing nothing', async () => {
    const q = await t.project();
    // 16 × 20000 is 320,000 pixels, far under IMAGE_MAX_PIXELS, and a few kilobytes of PNG.
    const tall = await upload(t, q.headers, { filename: 'tall.png', contentType: 'image/png', content: await imageOf(16, 20_000) });
    expect(tall.status).toBe(422);
    expect(tall.body.errors.file).toEqual(['The image is 16 × 20000 pixels: at most 16383 pixels on a side are accepted.']);
    const thin = await upload(t, q.headers, { filename: 'thin.png', contentType: 'image/png', content: await imageOf(16, 1700) });
    expect(thin.status).toBe(422);
    expect(thin.body.errors.file).toEqual(['The image is 16 × 1700 pixels, an aspect ratio of 106.3:1: at most 100:1 is accepted.']);
    // In bulk the refusal names the part, and nothing of the request is kept.
    const bulk = await bulkUpload(t, q.headers, [
      { filename: 'fine.png', contentType: 'image/png', content: await imageOf(40, 30) },
      { filename: 'tall.png', contentType: 'image/png', content: await imageOf(16, 20_000) },
    ]);
    expect(bulk.status).toBe(422);
    expect(bulk.body.errors).toEqual({ 'files.1': ['The image is 16 × 20000 pixels: at most 16383 pixels on a side are accepted.'] });
    expect(await t.database.prisma.asset.count({ where: { projectId: q.id } })).toBe(0);
    expect(existsSync(join(dataDir, 'assets', q.uuid)) ? readdirSync(join(dataDir, 'assets', q.uuid)) : []).toEqual([]);

    const atBound = await upload(t, q.headers, { filename: 'strip.png', contentType: 'image/png', content: await imageOf(16, 1600) });
    expect(atBound.status).toBe(201);
    expect(atBound.body.metadata).toEqual({ width: 16, height: 1600 });
  });

  it('widths 16, 32 and 4096 of a 16 px image (and the uploaded format named) are one stored variant, never enlarged', async () => {
    const res = await upload(t, p.headers, { filename: 'icon.png', contentType: 'image/png', content: await imageOf(16, 24) });
    const answers = [];
    for (const q of ['width=16', 'width=32', 'width=4096', 'width=4096&format=png', 'format=png']) {
      const r = await t.app.inject({ method: 'GET', url: `${res.body.url}?${q}` });
      expect(r.statusCode, q).toBe(200);
      expect(await sharp(r.rawPayload).metadata(), q).toMatchObject({ format: 'png', width: 16, height: 24 });
      answers.push(r);
    }
    expect(new Set(answers.map((a) => a.headers.etag)).size).toBe(1);
    for (const a of answers) expect(Buffer.compare(a.rawPayload, answers[0].rawPayload)).toBe(0);
    expect(variantsIn(dataDir, p, res.body.uuid)).toEqual([`${res.body.uuid}~w16.png`]);

    // Another format is another output.
    const webp = await t.app.inject({ method: 'GET', url: `${res.body.url}?width=4096&format=webp` });
    expect(await sharp(webp.rawPayload).metadata()).toMatchObject({ format: 'webp', width: 16, height: 24 });
    expect(variantsIn(dataDir, p, res.body.uuid)).toEqual([`${res.body.uuid}~w16.png`, `${res.body.uuid}~w16.webp`]);
  });
});

describe('format limits, the render pool and the per-address render budget', () => {
  let t: TestApp;
  let p: TestProject;
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-img-pool-'));
  const get = (url: string, remoteAddress: string) => t.app.inject({ method: 'GET', url, remoteAddress });

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        DATA_DIR: dataDir,
        // Looser upload bounds, so an image can have a variant no WebP can hold.
        IMAGE_MAX_DIMENSION: '20000',
        IMAGE_MAX_ASPECT_RATIO: '2000',
        IMAGE_RENDER_CONCURRENCY: '1',
        IMAGE_RENDER_QUEUE: '0',
        IMAGE_RENDERS_PER_MINUTE_ADDRESS: '2',
      },
    });
    p = await t.project();
  });
  afterAll(() => t.close());

  it('a WebP variant taller than WebP can hold is a 422 naming the format limit, not "could not be read"; PNG of it works', async () => {
    const res = await upload(t, p.headers, { filename: 'tall.png', contentType: 'image/png', content: await imageOf(16, 20_000) });
    expect(res.status).toBe(201);
    const webp = await get(`${res.body.url}?width=16&format=webp`, '10.0.0.1');
    expect(webp.statusCode).toBe(422);
    expect(JSON.parse(webp.body).errors).toEqual({
      format: ['WebP holds images of at most 16383 pixels on a side; this variant would be 16 × 20000 pixels. Ask for a smaller width or another format.'],
    });
    const png = await get(`${res.body.url}?width=16&format=png`, '10.0.0.1');
    expect(png.statusCode).toBe(200);
    expect(await sharp(png.rawPayload, { limitInputPixels: false }).metadata()).toMatchObject({ format: 'png', width: 16, height: 20_000 });
  });

  it('an image stored under looser bounds than today\'s is served as uploaded only, with a 422 saying why', async () => {
    const res = await upload(t, p.headers, { filename: 'legacy.png', contentType: 'image/png', content: await imageOf(10, 18_000) });
    expect(res.status).toBe(201);
    // The operator tightens the bound (a restart with IMAGE_MAX_DIMENSION=16383).
    const config = t.services.config;
    config.IMAGE_MAX_DIMENSION = 16_383;
    try {
      const r = await get(`${res.body.url}?width=16`, '10.0.0.2');
      expect(r.statusCode).toBe(422);
      expect(JSON.parse(r.body).errors.file).toEqual(['The image is 10 × 18000 pixels: at most 16383 pixels on a side are accepted. Only the original (no query) is served.']);
      expect((await get(res.body.url, '10.0.0.2')).statusCode).toBe(200);
      // The thumbnail made at upload is stored: still served.
      expect((await get(`${res.body.url}?variant=thumbnail`, '10.0.0.2')).statusCode).toBe(200);
    } finally {
      config.IMAGE_MAX_DIMENSION = 20_000;
    }
  });

  it('with every render slot busy and the queue full, a new variant is a 503 with Retry-After; stored variants, joined renders and uploads still go through', async () => {
    const res = await upload(t, p.headers, { filename: 'busy.png', contentType: 'image/png', content: await imageOf(600, 400) });
    const real = assetStorage(t.services);
    // The first render holds the one slot until released: it waits in reading the original.
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    const holding: AssetStorage = {
      put: (key, body, opts) => real.put(key, body, opts),
      get: async (key) => {
        if (!held && key === `${p.uuid}/${res.body.uuid}`) {
          held = true;
          entered();
          await released;
        }
        return real.get(key);
      },
      delete: (key) => real.delete(key),
    };
    setAssetStorage(t.services, holding);
    try {
      const first = get(`${res.body.url}?width=64`, '10.0.1.1');
      await inside;
      const refused = await get(`${res.body.url}?width=128`, '10.0.1.2');
      expect(refused.statusCode).toBe(503);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(refused.body).message).toMatch(/^The server is busy rendering other images; retry in \d+ seconds?\.$/);
      // The same variant as the running render joins it instead of being refused.
      const joined = get(`${res.body.url}?width=64`, '10.0.1.4');
      // The thumbnail is stored: served without a slot.
      expect((await get(`${res.body.url}?variant=thumbnail`, '10.0.1.3')).statusCode).toBe(200);
      // An upload's thumbnail waits for a slot instead of being refused.
      const uploading = upload(t, p.headers, { filename: 'later.png', contentType: 'image/png', content: await imageOf(300, 200) });
      release();
      for (const r of [await first, await joined]) {
        expect(r.statusCode).toBe(200);
        expect(await sharp(r.rawPayload).metadata()).toMatchObject({ width: 64 });
      }
      expect((await uploading).status).toBe(201);
    } finally {
      release();
      setAssetStorage(t.services, real);
    }
    expect((await get(`${res.body.url}?width=128`, '10.0.1.2')).statusCode).toBe(200);
  });

  it('first renders draw on a per-address budget (429 with Retry-After past it); stored variants and other addresses are not refused', async () => {
    const res = await upload(t, p.headers, { filename: 'budget.png', contentType: 'image/png', content: await imageOf(800, 600) });
    const address = '10.0.2.1';
    expect((await get(`${res.body.url}?width=100`, address)).statusCode).toBe(200);
    expect((await get(`${res.body.url}?width=200`, address)).statusCode).toBe(200);
    const spent = await get(`${res.body.url}?width=300`, address);
    expect(spent.statusCode).toBe(429);
    expect(Number(spent.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(spent.body).message).toMatch(/^Too many new image variants requested from this address; retry in \d+ seconds?\. Variants already rendered are served without limit\.$/);
    // Already rendered: no budget needed. Rounded to a stored width: the same.
    expect((await get(`${res.body.url}?width=100`, address)).statusCode).toBe(200);
    expect((await get(`${res.body.url}?width=97`, address)).statusCode).toBe(200);
    expect((await get(`${res.body.url}?variant=thumbnail`, address)).statusCode).toBe(200);
    expect((await get(`${res.body.url}?width=300`, '10.0.2.2')).statusCode).toBe(200);
  });

  it('the render budget counts an IPv6 client by its /64: another address of it is refused, another /64 is not', async () => {
    const res = await upload(t, p.headers, { filename: 'budget6.png', contentType: 'image/png', content: await imageOf(800, 600) });
    expect((await get(`${res.body.url}?width=100`, '2001:db8:77:1::1')).statusCode).toBe(200);
    expect((await get(`${res.body.url}?width=200`, '2001:db8:77:1::2')).statusCode).toBe(200);
    expect((await get(`${res.body.url}?width=300`, '2001:db8:77:1:abcd::3')).statusCode).toBe(429);
    expect((await get(`${res.body.url}?width=300`, '2001:db8:77:2::1')).statusCode).toBe(200);
  });
});
