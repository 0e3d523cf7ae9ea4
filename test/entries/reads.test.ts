import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { contentProject } from './helpers.ts';
import { PNG, upload } from '../assets/helpers.ts';

describe('entry reads: lists, relations, media, published vs draft', () => {
  let t: TestApp;
  let c: Awaited<ReturnType<typeof contentProject>>;
  let authors: { id: number };
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await startTestApp({ env: { DATA_DIR: mkdtempSync(join(tmpdir(), 'cms-reads-')) } });
    c = await contentProject(t, { locales: ['en', 'de'] });
    authors = await c.collection('authors', [
      { name: 'name', type: 'text' },
      { name: 'avatar', type: 'media', options: { media: { type: 1 } } },
      { name: 'best-post', type: 'relation' },
    ]);
    await c.collection('posts', [
      { name: 'title', type: 'text' },
      { name: 'price', type: 'number' },
      { name: 'flag', type: 'boolean' },
      { name: 'author', type: 'relation', options: { relation: { collection: authors.id, type: 1 } } },
      { name: 'co-authors', type: 'relation', options: { relation: { collection: authors.id, type: 2 } } },
      { name: 'gallery', type: 'media', options: { media: { type: 2 } } },
      { name: 'cover', type: 'media', options: { media: { type: 1 } } },
      { name: 'tags', type: 'text', options: { repeatable: true } },
    ]);
    const img = await upload(t, c.p.headers, { filename: 'a.png', contentType: 'image/png', content: PNG });
    ids.asset = img.body.uuid;
    ids.assetId = String(img.body.id);
    const ann = await c.create('authors', { state: 'published', data: { name: 'Ann', avatar: ids.asset } });
    const bob = await c.create('authors', { data: { name: 'Bob (draft only)' } });
    ids.ann = ann.body.uuid;
    ids.annId = String(ann.body.id);
    ids.bob = bob.body.uuid;
    for (const [title, price] of [['Gamma', 30], ['alpha', 5], ['Beta', 100]] as const) {
      const r = await c.create('posts', {
        state: 'published',
        data: { title, price, author: ann.body.id, 'co-authors': [ids.ann, ids.bob], gallery: [ids.asset, Number(ids.assetId)], cover: ids.asset },
      });
      expect(r.status).toBe(201);
      ids[title] = r.body.uuid;
    }
    const draft = await c.create('posts', { data: { title: 'Draft only', price: 1 } });
    ids.draft = draft.body.uuid;
    // Ann's best post points back at a post: nested entries keep relations as UUIDs, so no cycle.
    await c.patch('authors', ids.ann, { data: { 'best-post': ids.Gamma } });
  });
  afterAll(() => t.close());

  it('hydrates relations to nested entries (one level) and media to asset objects', async () => {
    const r = await c.get('posts', ids.Gamma);
    expect(r.status).toBe(200);
    const f = r.body.fields;
    expect(f.author).toMatchObject({ uuid: ids.ann, locale: 'en', fields: { name: 'Ann' } });
    expect(f.author.fields.avatar).toMatchObject({ uuid: ids.asset, mime_type: 'image/png', url: expect.stringContaining('/files/') });
    // the published read of Ann is her published copy, which predates best-post
    expect(f.author.fields['best-post']).toBeNull();
    expect(f['co-authors'].map((a: { uuid: string }) => a.uuid)).toEqual([ids.ann]); // Bob is unpublished
    expect(f.gallery).toHaveLength(2);
    expect(f.cover.uuid).toBe(ids.asset);

    const d = await c.get('posts', ids.Gamma, '?state=draft');
    expect(d.body.fields['co-authors'].map((a: { uuid: string }) => a.uuid)).toEqual([ids.ann, ids.bob]);
    expect(d.body.fields.author.fields['best-post']).toBe(ids.Gamma);
  });

  it('rejects references to missing, foreign-collection and other-project targets, and nested objects', async () => {
    const other = await t.project();
    const otherAsset = await upload(t, other.headers, { filename: 'b.png', contentType: 'image/png', content: PNG });
    const r = await c.create('posts', {
      data: {
        author: ids.Gamma, // a post, not an author
        'co-authors': [ids.ann, '00000000-0000-4000-8000-000000000000', { uuid: ids.ann }],
        gallery: [otherAsset.body.uuid, 999999],
        cover: 'not-a-ref',
      },
    });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors).sort()).toEqual(['data.author', 'data.co-authors.1', 'data.co-authors.2', 'data.cover', 'data.gallery.0', 'data.gallery.1']);
    expect(r.body.errors['data.co-authors.2'][0]).toMatch(/not a nested entry object/);

    const { createCollection } = await import('../helpers/fixtures.ts');
    const foreignAuthors = await createCollection(t.database.prisma, other.id, { slug: 'authors', fields: [{ name: 'name', type: 'text' }] });
    const foreign = await t.request({ method: 'POST', url: '/api/authors', headers: other.headers, body: { data: { name: 'Eve' } } });
    expect(foreign.status).toBe(201);
    expect(foreignAuthors.id).not.toBe(authors.id);
    const cross = await c.create('posts', { data: { author: foreign.body.uuid, 'co-authors': [foreign.body.id] } });
    expect(cross.status).toBe(422);
    expect(Object.keys(cross.body.errors).sort()).toEqual(['data.author', 'data.co-authors.0']);
  });

  it('stores numeric ids as UUIDs', async () => {
    const row = await t.database.prisma.entry.findUniqueOrThrow({ where: { uuid: ids.Gamma } });
    expect(row.data).toMatchObject({ author: ids.ann, gallery: [ids.asset, ids.asset] });
  });

  it('published lists leave out never-published entries; draft lists include them', async () => {
    const pub = await c.list('posts');
    expect(pub.status).toBe(200);
    expect(pub.body.map((e: { fields: { title: string } }) => e.fields.title)).toEqual(['Gamma', 'alpha', 'Beta']);
    const draft = await c.list('posts', '?state=draft');
    expect(draft.body).toHaveLength(4);
    expect((await c.get('posts', ids.draft)).status).toBe(404);
    expect((await c.list('posts', '?state=nonsense')).body).toHaveLength(3);
  });

  it('sorts by core columns and typed custom fields, 422 for unknown fields', async () => {
    const titles = async (q: string) => (await c.list('posts', q)).body.map((e: { fields: { title: string } }) => e.fields.title);
    expect(await titles('?sort=price:asc')).toEqual(['alpha', 'Gamma', 'Beta']);
    expect(await titles('?sort=price:DESC')).toEqual(['Beta', 'Gamma', 'alpha']);
    expect(await titles('?sort=id:desc')).toEqual(['Beta', 'alpha', 'Gamma']);
    expect(await titles('?state=draft&sort=flag:asc,created_at:asc')).toHaveLength(4);
    const bad = await c.list('posts', '?sort=nope:asc');
    expect(bad.status).toBe(422);
    expect(bad.body.errors.sort[0]).toMatch(/nope/);
    expect((await c.list('posts', '?sort=tags:asc')).status).toBe(422);
    expect((await c.list('posts', '?sort=price:sideways')).status).toBe(422);
  });

  it('paginate returns the Laravel paginator; limit/offset, count, first, exclude, timestamps', async () => {
    const page = await c.list('posts', '?paginate=2&page=2&sort=price:asc');
    expect(page.status).toBe(200);
    expect(page.body.data.map((e: { fields: { title: string } }) => e.fields.title)).toEqual(['Beta']);
    expect(page.body.meta).toEqual({ current_page: 2, from: 3, last_page: 2, path: '/api/posts', per_page: 2, to: 3, total: 3 });
    expect(page.body.links).toEqual({
      first: '/api/posts?paginate=2&page=1&sort=price%3Aasc',
      last: '/api/posts?paginate=2&page=2&sort=price%3Aasc',
      prev: '/api/posts?paginate=2&page=1&sort=price%3Aasc',
      next: null,
    });
    expect((await c.list('posts', '?paginate=0')).status).toBe(422);
    expect((await c.list('posts', '?paginate=1000')).body.meta.per_page).toBe(100);
    const limited = await c.list('posts', '?limit=1&offset=1');
    expect(limited.body.map((e: { fields: { title: string } }) => e.fields.title)).toEqual(['alpha']);
    expect((await c.list('posts', '?offset=2')).body).toHaveLength(3); // offset needs limit
    expect((await c.list('posts', '?count=1')).body).toEqual({ count: 3 });
    expect((await c.list('posts', '?state=draft&count')).body).toEqual({ count: 4 });
    const first = await c.list('posts', '?first=1&sort=price:desc&exclude=gallery,co-authors&timestamps=1');
    expect(first.body.fields.title).toBe('Beta');
    expect(first.body.fields).not.toHaveProperty('gallery');
    expect(first.body.fields).not.toHaveProperty('co-authors');
    expect(first.body.created_at).toEqual(expect.any(String));
    expect((await c.list('posts', '?first=1&locale=de')).status).toBe(404);
    expect((await c.list('posts', '?locale=de')).body).toEqual([]);
  });

  it('where filters are ANDed into the list query', async () => {
    const r = await c.list('posts', '?where[price][gt]=10&sort=price:asc');
    expect(r.status).toBe(200);
    expect(r.body.map((e: { fields: { title: string } }) => e.fields.title)).toEqual(['Gamma', 'Beta']);
    expect((await c.list('posts', '?where[nope][eq]=1')).status).toBe(422);
  });

  it('soft-deleted targets and assets disappear from hydrated reads', async () => {
    const temp = await c.create('authors', { state: 'published', data: { name: 'Temp' } });
    const img = await upload(t, c.p.headers, { filename: 'gone.png', contentType: 'image/png', content: PNG });
    const post = await c.create('posts', { state: 'published', data: { title: 'T', author: temp.body.uuid, cover: img.body.uuid } });
    await c.del('authors', temp.body.uuid);
    await t.request({ method: 'DELETE', url: `/api/files/${img.body.uuid}`, headers: c.p.headers });
    const r = await c.get('posts', post.body.uuid);
    expect(r.body.fields.author).toBeNull();
    expect(r.body.fields.cover).toBeNull();
  });

  it('404 for an unknown collection, 403 without read', async () => {
    expect((await c.list('nope')).status).toBe(404);
    expect((await c.list('posts', '', await c.p.tokenWith(['create']))).status).toBe(403);
  });
});
