import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { fieldIndexName } from '../../src/collections/field-indexes.ts';
import { fallbackIndexName } from '../../src/collections/fallback-indexes.ts';

/**
 * Per-field filter indexes follow the schema through the admin API: a new field gets its index, a
 * rename rebuilds it on the new key, and deleting the field or its collection drops it. The
 * collection's locale fallback indexes come with it and go with it.
 */
for (const embedded of [false, true]) describe(`filter index maintenance (${embedded ? 'PGlite' : 'PostgreSQL'})`, () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    t = await startTestApp({ embedded });
    p = await t.project({ name: 'Indexes' });
    const res = await t.request({
      method: 'POST',
      url: '/api/collections',
      headers: p.headers,
      body: { name: 'Books', slug: 'books', fields: [{ type: 'text', label: 'Title', name: 'title' }] },
    });
    expect(res.status).toBe(201);
  }, 120_000);
  afterAll(() => t.close());

  const api = (method: string, url: string, body?: unknown) => t.request({ method, url, headers: p.headers, body });
  const indexDef = async (name: string): Promise<string | null> => {
    const rows = await t.database.query<{ def: string }>(`SELECT indexdef AS def FROM pg_indexes WHERE tablename ~ '^entries_c[0-9]+$' AND indexname = $1`, [name]);
    return rows[0]?.def ?? null;
  };
  const fieldOf = async (name: string): Promise<{ id: number; uuid: string }> => {
    const res = await api('GET', '/api/collections/books');
    return res.body.fields.find((f: { name: string }) => f.name === name);
  };

  const collectionId = async (): Promise<number> => (await api('GET', '/api/collections/books')).body.id;

  it('builds the indexes of fields created with the collection, and its fallback indexes', async () => {
    const title = await fieldOf('title');
    expect(await indexDef(fieldIndexName(title.id, 'data'))).toMatch(/gin_trgm_ops/);
    expect(await indexDef(fieldIndexName(title.id, 'published_data'))).toMatch(/gin_trgm_ops/);
    const id = await collectionId();
    expect(await indexDef(fallbackIndexName(id, 'd'))).toMatch(new RegExp(`\\(translation_group_id, locale, id\\) WHERE \\(\\(collection_id = ${id}\\) AND \\(deleted_at IS NULL\\)\\)$`));
    expect(await indexDef(fallbackIndexName(id, 'p'))).toMatch(/\(translation_group_id, locale, id\) WHERE .*published_version_id IS NOT NULL/);
  });

  it('builds, rebuilds on rename and drops the index of a field added later', async () => {
    const created = await api('POST', '/api/collections/books/fields', { type: 'number', label: 'Pages', name: 'pages' });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect(await indexDef(fieldIndexName(id, 'data'))).toContain(`'pages'::text`);

    const renamed = await api('PUT', `/api/collections/books/fields/${created.body.uuid}`, { type: 'number', label: 'Page count', name: 'length' });
    expect(renamed.status).toBe(200);
    const def = await indexDef(fieldIndexName(id, 'published_data'));
    expect(def).toContain(`'length'::text`);
    expect(def).not.toContain(`'pages'::text`);

    // The rebuilt index answers the filter on the new name.
    await api('POST', '/api/books', { data: { title: 'Long', length: 900 } });
    await api('POST', '/api/books', { data: { title: 'Short', length: 90 } });
    const list = await api('GET', '/api/books?state=draft&where[length][gt]=100');
    expect(list.status).toBe(200);
    expect(list.body.map((e: { fields: { title: string } }) => e.fields.title)).toEqual(['Long']);

    expect((await api('DELETE', `/api/collections/books/fields/${created.body.uuid}`)).status).toBe(204);
    expect(await indexDef(fieldIndexName(id, 'data'))).toBeNull();
    expect(await indexDef(fieldIndexName(id, 'published_data'))).toBeNull();
  });

  it('drops the indexes of every field when the collection is deleted', async () => {
    const title = await fieldOf('title');
    const id = await collectionId();
    expect((await api('DELETE', '/api/collections/books', { slug: 'books' })).status).toBe(204);
    expect(await indexDef(fieldIndexName(title.id, 'data'))).toBeNull();
    expect(await indexDef(fallbackIndexName(id, 'd'))).toBeNull();
    expect(await indexDef(fallbackIndexName(id, 'p'))).toBeNull();
  });
});
