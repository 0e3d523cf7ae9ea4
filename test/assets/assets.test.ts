import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { PNG, upload } from './helpers.ts';

describe('assets', () => {
  let t: TestApp;
  let p: TestProject;
  let other: TestProject;
  beforeAll(async () => {
    t = await startTestApp({ env: { DATA_DIR: mkdtempSync(join(tmpdir(), 'cms-assets-')), UPLOAD_LIMIT_BYTES: '2048' } });
    p = await t.project();
    other = await t.project();
  });
  afterAll(() => t.close());

  it('uploads a file (201), serves it publicly at its url, gets it by uuid and id', async () => {
    const res = await upload(t, p.headers, { filename: 'My Photo.png', contentType: 'image/png', content: PNG });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      uuid: expect.any(String),
      filename: 'My-Photo.png',
      original_filename: 'My Photo.png',
      mime_type: 'image/png',
      size: `${PNG.length} B`,
      metadata: { width: 1, height: 1 },
    });
    expect(res.body.thumbnail_url).toBe(`/files/${res.body.uuid}/My-Photo.png?variant=thumbnail`);
    expect(res.body.url).toBe(`/files/${res.body.uuid}/My-Photo.png`);
    const file = await t.app.inject({ method: 'GET', url: res.body.url });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['x-content-type-options']).toBe('nosniff');
    expect(Buffer.compare(file.rawPayload, PNG)).toBe(0);
    const original = await t.app.inject({ method: 'GET', url: res.body.original_url });
    expect(original.statusCode).toBe(200);

    for (const key of [res.body.uuid, String(res.body.id)]) {
      const got = await t.request({ method: 'GET', url: `/api/files/${key}`, headers: p.headers });
      expect(got.status).toBe(200);
      expect(got.body.uuid).toBe(res.body.uuid);
    }
    const foreign = await t.request({ method: 'GET', url: `/api/files/${res.body.uuid}`, headers: other.headers });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Asset not found');
  });

  it('infers the type from the extension when the client sends octet-stream; rejects disallowed types (422)', async () => {
    const ok = await upload(t, p.headers, { filename: 'notes.txt', contentType: 'application/octet-stream', content: 'hello' });
    expect(ok.status).toBe(201);
    expect(ok.body.mime_type).toBe('text/plain');
    const html = await upload(t, p.headers, { filename: 'x.html', contentType: 'text/html', content: '<script>alert(1)</script>' });
    expect(html.status).toBe(422);
    expect(html.body.errors.file[0]).toMatch(/not allowed/);
    const svg = await upload(t, p.headers, { filename: 'x.svg', contentType: 'application/octet-stream', content: '<svg/>' });
    expect(svg.status).toBe(422);
  });

  it('413 past UPLOAD_LIMIT_BYTES, 422 without a file part, 415 for a JSON body, 403 without create', async () => {
    const big = await upload(t, p.headers, { filename: 'big.txt', contentType: 'text/plain', content: Buffer.alloc(4096, 97) });
    expect(big.status).toBe(413);
    const wrongField = await upload(t, p.headers, { field: 'image', filename: 'a.txt', contentType: 'text/plain', content: 'a' });
    expect(wrongField.status).toBe(422);
    // A JSON body is the wrong media type for an upload (415); no body at all is a missing file part.
    const json = await t.request({ method: 'POST', url: '/api/files', headers: p.headers, body: { file: 'x' } });
    expect(json.status).toBe(415);
    const none = await t.request({ method: 'POST', url: '/api/files', headers: p.headers });
    expect(none.status).toBe(422);
    const denied = await upload(t, await p.tokenWith(['read']), { filename: 'a.txt', contentType: 'text/plain', content: 'a' });
    expect(denied.status).toBe(403);
  });

  it('lists newest first with search, type and Laravel pagination', async () => {
    const q = await t.project();
    for (const name of ['a.png', 'b.png', 'report.pdf']) {
      const r = await upload(t, q.headers, { filename: name, contentType: name.endsWith('png') ? 'image/png' : 'application/pdf', content: PNG });
      expect(r.status).toBe(201);
    }
    const all = await t.request({ method: 'GET', url: '/api/files?paginate=2', headers: q.headers });
    expect(all.status).toBe(200);
    expect(all.body.data.map((a: { filename: string }) => a.filename)).toEqual(['report.pdf', 'b.png']);
    expect(all.body.meta).toMatchObject({ current_page: 1, per_page: 2, total: 3, last_page: 2, from: 1, to: 2, path: '/api/files' });
    expect(all.body.links.next).toBe('/api/files?paginate=2&page=2');
    const images = await t.request({ method: 'GET', url: '/api/files?type=image', headers: q.headers });
    expect(images.body.data).toHaveLength(2);
    const docs = await t.request({ method: 'GET', url: '/api/files?type=document', headers: q.headers });
    expect(docs.body.data.map((a: { filename: string }) => a.filename)).toEqual(['report.pdf']);
    const search = await t.request({ method: 'GET', url: '/api/files?search=REPO', headers: q.headers });
    expect(search.body.meta.total).toBe(1);
    const badType = await t.request({ method: 'GET', url: '/api/files?type=font', headers: q.headers });
    expect(badType.status).toBe(422);
  });

  it('delete hides the asset (soft), force removes the bytes; 403 without delete', async () => {
    const a = (await upload(t, p.headers, { filename: 'gone.png', contentType: 'image/png', content: PNG })).body;
    const denied = await t.request({ method: 'DELETE', url: `/api/files/${a.uuid}`, headers: await p.tokenWith(['read']) });
    expect(denied.status).toBe(403);
    const del = await t.request({ method: 'DELETE', url: `/api/files/${a.uuid}`, headers: p.headers });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ message: 'Asset deleted.' });
    expect((await t.request({ method: 'GET', url: `/api/files/${a.uuid}`, headers: p.headers })).status).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: a.url })).statusCode).toBe(404);

    const b = (await upload(t, p.headers, { filename: 'forced.png', contentType: 'image/png', content: PNG })).body;
    const row = await t.database.prisma.asset.findUniqueOrThrow({ where: { uuid: b.uuid } });
    const forced = await t.request({ method: 'DELETE', url: `/api/files/${b.uuid}?force=1`, headers: p.headers });
    expect(forced.status).toBe(200);
    expect(await t.database.prisma.asset.findUnique({ where: { uuid: b.uuid } })).toBeNull();
    const { assetStorage } = await import('../../src/assets/storage.ts');
    expect(await assetStorage(t.services).get(row.storageKey)).toBeNull();
  });
});
