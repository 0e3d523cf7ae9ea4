import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { contentProject } from './helpers.ts';

for (const embedded of [false, true]) {
  describe(`entry CRUD (${embedded ? 'PGlite' : 'PostgreSQL'})`, () => {
    let t: TestApp;
    let c: Awaited<ReturnType<typeof contentProject>>;
    beforeAll(async () => {
      t = await startTestApp({ embedded });
      c = await contentProject(t, { locales: ['en', 'de'] });
      await c.collection('posts', [
        { name: 'title', type: 'text', validations: { required: { status: true } } },
        { name: 'body', type: 'richtext' },
        { name: 'views', type: 'number' },
        { name: 'slug', type: 'slug', options: { slug: { field: 'title' } } },
      ]);
      await c.collection('home', [{ name: 'headline', type: 'text' }], { isSingleton: true });
    });
    afterAll(() => t.close());

    it('creates a draft (201) and reads it back with state=draft only', async () => {
      const res = await c.create('posts', { data: { title: 'Hello', body: '# Hi', views: 3, unknown: 1 } });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        uuid: expect.any(String),
        id: expect.any(Number),
        locale: 'en',
        state: 'draft',
        published_at: null,
        published_version_id: null,
        published_version_number: null,
        is_draft_dirty: true,
        fields: { title: 'Hello', body: '<h1>Hi</h1>', views: 3 },
      });
      expect(res.body.fields).not.toHaveProperty('unknown');
      expect(res.body).not.toHaveProperty('created_at');
      const published = await c.get('posts', res.body.uuid);
      expect(published.status).toBe(404);
      // The first surprise of a new user, said where it happens: the entry exists, as a draft.
      expect(published.body.message).toBe('Entry not found: it has no published version yet. Read its draft with state=draft (REST ?state=draft, GraphQL state: DRAFT).');
      const draft = await c.get('posts', res.body.uuid, '?state=draft&timestamps=1');
      expect(draft.status).toBe(200);
      expect(draft.body.fields.title).toBe('Hello');
      expect(draft.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    });

    it('updates, lists, pages, sorts, links and deletes (every SQL path runs on this engine)', async () => {
      const a = await c.create('posts', { state: 'published', data: { title: 'Same', views: 10 } });
      const b = await c.create('posts', { state: 'published', data: { title: 'Same', views: 2 } });
      expect([a.body.fields.slug, b.body.fields.slug]).toEqual(['same', 'same-2']);
      expect((await c.patch('posts', a.body.uuid, { data: { views: 11 } })).body.fields.views).toBe(11);
      expect((await c.put('posts', b.body.uuid, { data: { title: 'Other' } })).body.fields).toMatchObject({ title: 'Other', views: null, slug: 'other' });
      const page = await c.list('posts', '?state=draft&paginate=2&sort=views:desc&where[title][like]=am');
      expect(page.status).toBe(200);
      expect(page.body.meta.total).toBe(1);
      expect((await c.list('posts', '?count=1')).body).toEqual({ count: 2 });
      const de = await c.create('posts', { locale: 'de', data: { title: 'DE' } });
      const link = await c.req('POST', `/api/posts/${a.body.uuid}/link-translation`, { translation_entry_uuid: de.body.uuid });
      expect(link.status).toBe(200);
      const home = await Promise.all([c.create('home', { data: { headline: '1' } }), c.create('home', { data: { headline: '2' } })]);
      expect(home.map((r) => r.status).sort()).toEqual([201, 422]);
      expect((await c.list('home', '?state=draft')).body.fields.headline).toMatch(/^[12]$/);
      expect((await c.del('posts', b.body.uuid)).status).toBe(200);
      expect((await c.del('posts', b.body.uuid, '?force=1')).status).toBe(200);
      expect((await c.list('posts', '?count=1')).body).toEqual({ count: 1 });
    });
  });
}
