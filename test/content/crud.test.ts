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
      ]);
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
      const draft = await c.get('posts', res.body.uuid, '?state=draft&timestamps=1');
      expect(draft.status).toBe(200);
      expect(draft.body.fields.title).toBe('Hello');
      expect(draft.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    });
  });
}
