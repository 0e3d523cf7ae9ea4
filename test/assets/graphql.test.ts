import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { PNG, upload } from './helpers.ts';

describe('assets over GraphQL: assetByName, updateAssetsMetadata', () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    t = await startTestApp({ env: { DATA_DIR: mkdtempSync(join(tmpdir(), 'cms-assets-gql-')) } });
    p = await t.project();
  });
  afterAll(() => t.close());

  it('assetByName finds the exact original filename; NOT_FOUND otherwise; thumbnailUrl for images', async () => {
    const a = (await upload(t, p.headers, { filename: 'Logo Final.png', contentType: 'image/png', content: PNG })).body;
    const q = 'query($f: String!) { assetByName(filename: $f) { uuid originalFilename thumbnailUrl metadata } }';
    const found = await t.graphql(q, { f: 'Logo Final.png' }, p.headers);
    expect(found.body.data.assetByName).toEqual({ uuid: a.uuid, originalFilename: 'Logo Final.png', thumbnailUrl: a.thumbnail_url, metadata: { width: 1, height: 1 } });
    const missing = await t.graphql(q, { f: 'logo final.png' }, p.headers);
    expect(missing.body.errors[0]).toMatchObject({ message: 'Asset not found', extensions: { code: 'NOT_FOUND' } });
    const denied = await t.graphql(q, { f: 'Logo Final.png' }, await p.tokenWith(['create']));
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('updateAssetsMetadata merges the sent keys like the REST route; null removes; errors keyed by item', async () => {
    const a = (await upload(t, p.headers, { filename: 'a.txt', contentType: 'text/plain', content: 'a' })).body;
    const m = 'mutation($items: [AssetMetadataInput!]!) { updateAssetsMetadata(items: $items) { message data { uuid metadata } } }';
    const first = await t.graphql(m, { items: [{ uuid: a.uuid, altText: 'Alt', author: 'Ann' }] }, p.headers);
    expect(first.body.data.updateAssetsMetadata).toEqual({ message: 'Metadata of 1 file updated.', data: [{ uuid: a.uuid, metadata: { alt_text: 'Alt', author: 'Ann' } }] });
    const second = await t.graphql(m, { items: [{ uuid: a.uuid, altText: null, title: 'T' }] }, p.headers);
    expect(second.body.data.updateAssetsMetadata.data[0].metadata).toEqual({ author: 'Ann', title: 'T' });
    const rest = await t.request({ method: 'GET', url: `/api/files/${a.uuid}`, headers: p.headers });
    expect(rest.body.metadata).toEqual({ author: 'Ann', title: 'T' });

    const unknown = await t.graphql(m, { items: [{ uuid: a.uuid, title: 'x' }, { uuid: '00000000-0000-4000-8000-000000000000', title: 'y' }] }, p.headers);
    expect(unknown.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: { 'items.1.uuid': ['Asset not found.'] } });
    const tooLong = await t.graphql(m, { items: [{ uuid: a.uuid, title: 'x'.repeat(256) }] }, p.headers);
    expect(Object.keys(tooLong.body.errors[0].extensions.errors)).toEqual(['items.0.title']);
    const denied = await t.graphql(m, { items: [{ uuid: a.uuid, title: 'x' }] }, await p.tokenWith(['read']));
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await t.request({ method: 'GET', url: `/api/files/${a.uuid}`, headers: p.headers })).body.metadata).toEqual({ author: 'Ann', title: 'T' });
  });
});
