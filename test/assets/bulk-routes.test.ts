import { mkdtempSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { PNG, bulkUpload, upload } from './helpers.ts';

/** Files of a project on the local store (DATA_DIR/assets/<project>/...), variants included. */
function storedFiles(dataDir: string, project: TestProject): string[] {
  const dir = join(dataDir, 'assets', project.uuid);
  return existsSync(dir) ? readdirSync(dir).filter((n) => !n.endsWith('.part')) : [];
}

describe('asset routes: by name, bulk upload, bulk metadata', () => {
  let t: TestApp;
  let p: TestProject;
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-assets-bulk-'));
  beforeAll(async () => {
    t = await startTestApp({ env: { DATA_DIR: dataDir, UPLOAD_LIMIT_BYTES: '4096' } });
    p = await t.project();
  });
  afterAll(() => t.close());

  it('GET /api/files/name/{filename}: exact original name, newest first, project-scoped, 404 Asset not found', async () => {
    const older = await upload(t, p.headers, { filename: 'Team Photo.png', contentType: 'image/png', content: PNG });
    const newer = await upload(t, p.headers, { filename: 'Team Photo.png', contentType: 'image/png', content: PNG });
    await upload(t, p.headers, { filename: 'team photo.png', contentType: 'image/png', content: PNG });
    expect(older.status).toBe(201);
    const got = await t.request({ method: 'GET', url: `/api/files/name/${encodeURIComponent('Team Photo.png')}`, headers: p.headers });
    expect(got.status).toBe(200);
    expect(got.body.uuid).toBe(newer.body.uuid);
    expect(got.body.original_filename).toBe('Team Photo.png');

    const prefix = await t.request({ method: 'GET', url: '/api/files/name/Team', headers: p.headers });
    expect(prefix.status).toBe(404);
    expect(prefix.body).toEqual({ message: 'Asset not found' });
    const other = await t.project();
    const foreign = await t.request({ method: 'GET', url: `/api/files/name/${encodeURIComponent('Team Photo.png')}`, headers: other.headers });
    expect(foreign.status).toBe(404);
    // The fixed segment does not shadow a by-id lookup, nor the other way round.
    expect((await t.request({ method: 'GET', url: `/api/files/${newer.body.uuid}`, headers: p.headers })).body.uuid).toBe(newer.body.uuid);
    expect((await t.request({ method: 'GET', url: '/api/files/name', headers: p.headers })).body).toEqual({ message: 'Asset not found' });
    // Deleted assets are not found by name.
    await t.request({ method: 'DELETE', url: `/api/files/${newer.body.uuid}`, headers: p.headers });
    const afterDelete = await t.request({ method: 'GET', url: `/api/files/name/${encodeURIComponent('Team Photo.png')}`, headers: p.headers });
    expect(afterDelete.body.uuid).toBe(older.body.uuid);
    // Original names keep up to 255 characters, spaces and non-ASCII letters; all of them are found.
    for (const name of [`${'long name '.repeat(25)}.txt`, 'Übersicht (final) #2.pdf']) {
      const up = await upload(t, p.headers, { filename: name, contentType: 'application/octet-stream', content: 'x' });
      const byName = await t.request({ method: 'GET', url: `/api/files/name/${encodeURIComponent(name)}`, headers: p.headers });
      expect(byName.status, name).toBe(200);
      expect(byName.body.uuid).toBe(up.body.uuid);
    }
    const denied = await t.request({ method: 'GET', url: '/api/files/name/x.png', headers: await p.tokenWith(['create']) });
    expect(denied.status).toBe(403);
  });

  it('POST /api/files/bulk/upload: files[] stored together, 201 { message, data } in order', async () => {
    const q = await t.project();
    const res = await bulkUpload(t, q.headers, [
      { filename: 'one.png', contentType: 'image/png', content: PNG },
      { filename: 'two.txt', contentType: 'text/plain', content: 'hello' },
      { field: 'files', filename: 'three.pdf', contentType: 'application/pdf', content: '%PDF-1.4' },
    ]);
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('3 files uploaded.');
    expect(res.body.data.map((a: { original_filename: string }) => a.original_filename)).toEqual(['one.png', 'two.txt', 'three.pdf']);
    expect(res.body.data[0]).toMatchObject({ mime_type: 'image/png', metadata: { width: 1, height: 1 }, thumbnail_url: expect.stringContaining('variant=thumbnail') });
    expect(res.body.data[1]).toMatchObject({ mime_type: 'text/plain', metadata: null, thumbnail_url: null });
    const served = await t.app.inject({ method: 'GET', url: res.body.data[1].url });
    expect(served.body).toBe('hello');
    const list = await t.request({ method: 'GET', url: '/api/files', headers: q.headers });
    expect(list.body.meta.total).toBe(3);
  });

  it('bulk upload is all or nothing: a refused, empty or too large file leaves no row and no file', async () => {
    const q = await t.project();
    const good = { filename: 'ok.png', contentType: 'image/png', content: PNG };
    const cases = [
      { bad: { filename: 'page.html', contentType: 'text/html', content: '<p>' }, status: 422, key: 'files.2' },
      { bad: { filename: 'empty.txt', contentType: 'text/plain', content: '' }, status: 422, key: 'files.2' },
      { bad: { filename: 'broken.png', contentType: 'image/png', content: 'not a png' }, status: 422, key: 'files.2' },
      { bad: { filename: 'big.txt', contentType: 'text/plain', content: Buffer.alloc(8192, 97) }, status: 413, key: null },
    ];
    for (const c of cases) {
      const res = await bulkUpload(t, q.headers, [good, { ...good, filename: 'ok2.png' }, c.bad, good]);
      expect(res.status, c.bad.filename).toBe(c.status);
      if (c.key) expect(Object.keys(res.body.errors)).toEqual([c.key]);
      expect(await t.database.prisma.asset.count({ where: { projectId: q.id } })).toBe(0);
      expect(storedFiles(dataDir, q)).toEqual([]);
    }
  });

  it('bulk upload limits: at most 20 files, at least one, only files[] parts, 403 without create', async () => {
    const q = await t.project();
    const many = Array.from({ length: 21 }, (_, i) => ({ filename: `f${i}.txt`, contentType: 'text/plain', content: `file ${i}` }));
    const tooMany = await bulkUpload(t, q.headers, many);
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors.files[0]).toMatch(/at most 20/);
    expect(await t.database.prisma.asset.count({ where: { projectId: q.id } })).toBe(0);
    expect(storedFiles(dataDir, q)).toEqual([]);

    const twenty = await bulkUpload(t, q.headers, many.slice(0, 20));
    expect(twenty.status).toBe(201);
    expect(twenty.body.data).toHaveLength(20);

    // A JSON body is not a form: the route takes multipart/form-data only.
    const json = await t.request({ method: 'POST', url: '/api/files/bulk/upload', headers: q.headers, body: { files: [] } });
    expect(json.status).toBe(415);
    const none = await t.request({ method: 'POST', url: '/api/files/bulk/upload', headers: q.headers });
    expect(none.status).toBe(422);
    expect(none.body.errors.files[0]).toMatch(/required/);
    const wrongField = await bulkUpload(t, q.headers, [{ field: 'file', filename: 'a.txt', contentType: 'text/plain', content: 'a' }]);
    expect(wrongField.status).toBe(422);
    expect(wrongField.body.errors.files[0]).toMatch(/files\[\]/);
    const denied = await bulkUpload(t, await q.tokenWith(['read', 'update']), [{ filename: 'a.txt', contentType: 'text/plain', content: 'a' }]);
    expect(denied.status).toBe(403);
  });

  it('PATCH /api/files/bulk/metadata merges only the sent keys, null removes one, width/height stay', async () => {
    const q = await t.project();
    const a = (await upload(t, q.headers, { filename: 'a.png', contentType: 'image/png', content: PNG })).body;
    const b = (await upload(t, q.headers, { filename: 'b.txt', contentType: 'text/plain', content: 'b' })).body;
    const first = await t.request({
      method: 'PATCH',
      url: '/api/files/bulk/metadata',
      headers: q.headers,
      body: { items: [{ uuid: a.uuid, alt_text: 'A cat', title: 'Cat' }, { uuid: b.uuid, author: 'Ann' }] },
    });
    expect(first.status).toBe(200);
    expect(first.body.message).toBe('Metadata of 2 files updated.');
    expect(first.body.data[0].metadata).toEqual({ width: 1, height: 1, alt_text: 'A cat', title: 'Cat' });
    expect(first.body.data[1].metadata).toEqual({ author: 'Ann' });

    const second = await t.request({
      method: 'PATCH',
      url: '/api/files/bulk/metadata',
      headers: q.headers,
      body: { items: [{ uuid: a.uuid, caption: 'On a mat', title: null }] },
    });
    expect(second.status).toBe(200);
    expect(second.body.data[0].metadata).toEqual({ width: 1, height: 1, alt_text: 'A cat', caption: 'On a mat' });
    const got = await t.request({ method: 'GET', url: `/api/files/${a.uuid}`, headers: q.headers });
    expect(got.body.metadata).toEqual(second.body.data[0].metadata);
    const cleared = await t.request({ method: 'PATCH', url: '/api/files/bulk/metadata', headers: q.headers, body: { items: [{ uuid: b.uuid, author: null }] } });
    expect(cleared.body.data[0].metadata).toBeNull();
  });

  it('bulk metadata refuses the whole request for an unknown, foreign or repeated uuid, unknown keys, bad types and over 50 items', async () => {
    const q = await t.project();
    const other = await t.project();
    const a = (await upload(t, q.headers, { filename: 'a.txt', contentType: 'text/plain', content: 'a' })).body;
    const foreign = (await upload(t, other.headers, { filename: 'f.txt', contentType: 'text/plain', content: 'f' })).body;
    const send = (body: unknown, headers = q.headers) => t.request({ method: 'PATCH', url: '/api/files/bulk/metadata', headers, body });

    const unknown = await send({ items: [{ uuid: a.uuid, title: 'kept?' }, { uuid: foreign.uuid, title: 'x' }] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual({ 'items.1.uuid': ['Asset not found.'] });
    expect((await t.request({ method: 'GET', url: `/api/files/${a.uuid}`, headers: q.headers })).body.metadata).toBeNull();

    const repeated = await send({ items: [{ uuid: a.uuid, title: 'x' }, { uuid: a.uuid.toUpperCase(), title: 'y' }] });
    expect(repeated.status).toBe(422);
    expect(Object.keys(repeated.body.errors)).toEqual(['items.1.uuid']);
    const width = await send({ items: [{ uuid: a.uuid, width: 10 }] });
    expect(width.status).toBe(422);
    expect(JSON.stringify(width.body.errors)).toMatch(/width/);
    const notText = await send({ items: [{ uuid: a.uuid, title: 5 }] });
    expect(notText.status).toBe(422);
    expect(Object.keys(notText.body.errors)).toEqual(['items.0.title']);
    const notUuid = await send({ items: [{ uuid: 'abc' }] });
    expect(notUuid.body.errors['items.0.uuid']).toEqual(['The uuid must be a UUID.']);
    const tooMany = await send({ items: Array.from({ length: 51 }, () => ({ uuid: a.uuid })) });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors.items[0]).toMatch(/at most 50/);
    const empty = await send({ items: [] });
    expect(empty.status).toBe(422);
    const noBody = await send(undefined);
    expect(noBody.status).toBe(422);
    const denied = await send({ items: [{ uuid: a.uuid, title: 'x' }] }, await q.tokenWith(['read', 'create']));
    expect(denied.status).toBe(403);
  });
});
