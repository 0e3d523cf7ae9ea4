import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { imageOf, upload } from '../assets/helpers.ts';
import { SEED, TIMEOUT, fuzzParams } from './harness.ts';

/**
 * Random small images and random `?width=&format=` asks on the public file URL: every answer is the
 * image at min(width rounded up to the allow-list, its own width), never enlarged, aspect ratio kept;
 * asks that produce the same output get the same bytes and ETag, and one file is stored per distinct
 * output (width, format), however many asks there were.
 */
const ROUNDED = [16, 32, 48, 64, 96, 128, 160, 240, 320];
const FORMATS = ['', 'webp', 'jpeg', 'png', 'avif'] as const;

describe('fuzz: image variants are keyed by their effective output', () => {
  let t: TestApp;
  let p: TestProject;
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-fuzz-img-'));

  beforeAll(async () => {
    t = await startTestApp({ env: { DATA_DIR: dataDir, IMAGE_RENDERS_PER_MINUTE_ADDRESS: '1000000' } });
    p = await t.project();
  });
  afterAll(() => t.close());

  it(
    'answers, sizes and stored files follow from the effective output alone',
    async () => {
      const ask = fc.record({ width: fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }), format: fc.constantFrom(...FORMATS) });
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 200 }), fc.array(ask, { minLength: 1, maxLength: 6 }), async (w, h, asks) => {
          const res = await upload(t, p.headers, { filename: 'f.png', contentType: 'image/png', content: await imageOf(w, h) });
          const ctx = `${w}×${h} ${JSON.stringify(asks)} (FUZZ_SEED=${SEED})`;
          if (Math.max(w, h) / Math.min(w, h) > 100) {
            expect(res.status, ctx).toBe(422);
            return;
          }
          expect(res.status, ctx).toBe(201);
          const outputs = new Map<string, { etag: string; bytes: Buffer }>();
          for (const a of asks) {
            const query = [a.width === undefined ? '' : `width=${a.width}`, a.format ? `format=${a.format}` : ''].filter(Boolean).join('&') || 'format=png';
            const r = await t.app.inject({ method: 'GET', url: `${res.body.url}?${query}` });
            expect(r.statusCode, `${query} ${ctx}`).toBe(200);
            const width = a.width === undefined ? w : Math.min(ROUNDED.find((x) => x >= a.width!)!, w);
            const meta = await sharp(r.rawPayload).metadata();
            expect(meta.width, `${query} ${ctx}`).toBe(width);
            expect(meta.height, `${query} ${ctx}`).toBe(Math.max(1, Math.round((h * width) / w)));
            const key = `${width}.${a.format || 'png'}`;
            const seen = outputs.get(key);
            if (seen) {
              expect(r.headers.etag, `${query} ${ctx}`).toBe(seen.etag);
              expect(Buffer.compare(r.rawPayload, seen.bytes), `${query} ${ctx}`).toBe(0);
            } else outputs.set(key, { etag: String(r.headers.etag), bytes: r.rawPayload });
          }
          const dir = join(dataDir, 'assets', p.uuid);
          const stored = existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith(`${res.body.uuid}~w`)) : [];
          expect(stored.length, ctx).toBe(outputs.size);
        }),
        { ...fuzzParams(), numRuns: Math.min(fuzzParams().numRuns ?? 25, 25) },
      );
    },
    TIMEOUT,
  );
});
