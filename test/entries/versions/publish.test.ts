import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../../helpers/app.ts';
import { createEntry, entryRow, patchEntry, setupCollections } from './helpers.ts';

for (const embedded of [false, true]) {
  describe(`publish, unpublish and the version list (${embedded ? 'PGlite' : 'PostgreSQL'})`, () => {
    let t: TestApp;
    let p: TestProject;
    beforeAll(async () => {
      t = await startTestApp({ embedded });
      p = await t.project({ name: 'Versions' });
      await setupCollections(t, p);
    });
    afterAll(() => t.close());

    const url = (uuid: string, rest = '') => `/api/posts/${uuid}${rest}`;

    it('publish mints v1, v2, ... and moves the pointer, the published copy and the dirty flag together', async () => {
      const uuid = await createEntry(t, p, 'posts', { title: 'Hello', views: 1 });
      const first = await t.request({ method: 'POST', url: url(uuid, '/publish'), headers: p.headers });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ message: 'Content published as v1.', version_number: 1, entry: { uuid, fields: { title: 'Hello', views: 1 } } });

      await patchEntry(t, p, 'posts', uuid, { title: 'Hello again' });
      expect((await entryRow(t, uuid)).isDraftDirty).toBe(true);

      const second = await t.request({ method: 'POST', url: url(uuid, '/publish'), headers: p.headers });
      expect(second.body).toMatchObject({ message: 'Content published as v2.', version_number: 2, entry: { fields: { title: 'Hello again' } } });
      const row = await entryRow(t, uuid);
      const v2 = await t.database.prisma.entryVersion.findFirstOrThrow({ where: { entryId: row.id, versionNumber: 2 } });
      expect(row).toMatchObject({ state: 'published', publishedVersionId: v2.id, publishedVersionNumber: 2, isDraftDirty: false, lastVersionNumber: 2 });
      expect(row.publishedData).toEqual((v2.snapshot as { fields: unknown }).fields);
      expect(row.publishedAt).not.toBeNull();
    });

    it('published reads stay on the last publish while the draft moves; unpublish hides the entry', async () => {
      const uuid = await createEntry(t, p, 'posts', { title: 'Stable', views: 1 });
      const get = (query = '') => t.request({ method: 'GET', url: url(uuid, query), headers: p.headers });
      const listTitles = async (state: string) =>
        ((await t.request({ method: 'GET', url: `/api/posts?state=${state}`, headers: p.headers })).body as Array<{ uuid: string; fields: { title: string } }>)
          .filter((e) => e.uuid === uuid)
          .map((e) => e.fields.title);
      expect((await get()).status).toBe(404);
      expect(await listTitles('published')).toEqual([]);

      await t.request({ method: 'POST', url: url(uuid, '/publish'), headers: p.headers });
      await patchEntry(t, p, 'posts', uuid, { title: 'Edited draft', views: 2 });
      expect((await get()).body.fields).toMatchObject({ title: 'Stable', views: 1 });
      expect((await get('?state=draft')).body.fields).toMatchObject({ title: 'Edited draft', views: 2 });
      expect(await listTitles('published')).toEqual(['Stable']);
      expect(await listTitles('draft')).toEqual(['Edited draft']);

      await t.request({ method: 'POST', url: url(uuid, '/publish'), headers: p.headers });
      expect((await get()).body.fields).toMatchObject({ title: 'Edited draft', views: 2 });
      expect(await listTitles('published')).toEqual(['Edited draft']);

      await t.request({ method: 'POST', url: url(uuid, '/unpublish'), headers: p.headers });
      expect((await get()).status).toBe(404);
      expect(await listTitles('published')).toEqual([]);
      expect((await get('?state=draft')).body.fields.title).toBe('Edited draft');
    });

    it('create with state=published is version 1 of the same numbering', async () => {
      const uuid = await createEntry(t, p, 'posts', { title: 'Born published' }, { state: 'published' });
      const list = await t.request({ method: 'GET', url: url(uuid, '/versions'), headers: p.headers });
      expect(list.body.data.map((v: { version_number: number; is_current_published: boolean }) => [v.version_number, v.is_current_published])).toEqual([[1, true]]);
      const next = await t.request({ method: 'POST', url: url(uuid, '/publish'), headers: p.headers });
      expect(next.body.message).toBe('Content published as v2.');
    });

    it('lists versions newest first, without snapshots, with creator and exactly one current', async () => {
      const uuid = await createEntry(t, p, 'posts', { title: 'List me' });
      const publisher = await p.tokenWith(['update']);
      for (let i = 0; i < 3; i++) expect((await t.request({ method: 'POST', url: url(uuid, '/publish'), headers: publisher })).status).toBe(200);
      const res = await t.request({ method: 'GET', url: url(uuid, '/versions'), headers: p.headers });
      expect(res.status).toBe(200);
      expect(res.body.data.map((v: { version_number: number }) => v.version_number)).toEqual([3, 2, 1]);
      expect(res.body.data.map((v: { is_current_published: boolean }) => v.is_current_published)).toEqual([true, false, false]);
      const item = res.body.data[0];
      expect(Object.keys(item).sort()).toEqual(
        ['created_at', 'created_by', 'description', 'is_current_published', 'label', 'locale', 'published_at', 'translation_group_id', 'updated_at', 'uuid', 'version_number'].sort(),
      );
      expect(item).toMatchObject({ label: null, description: null, locale: 'en', translation_group_id: null, created_by: { id: expect.any(Number), name: 'test update' } });
      expect(new Date(item.published_at).toISOString()).toBe(item.published_at);
    });

    it('detail carries the snapshot in the write shape, never a password', async () => {
      const uuid = await createEntry(t, p, 'posts', { title: 'Secret', secret: 'hunter22!' });
      await t.request({ method: 'POST', url: url(uuid, '/publish'), headers: p.headers });
      const res = await t.request({ method: 'GET', url: url(uuid, '/versions/1'), headers: p.headers });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ version_number: 1, is_current_published: true, snapshot: { fields: { title: 'Secret' }, meta: { locale: 'en', translation_group_id: null } } });
      expect(res.body.snapshot.fields).not.toHaveProperty('secret');
      const row = await entryRow(t, uuid);
      expect(row.publishedData).not.toHaveProperty('secret');
      const stored = await t.database.prisma.entryVersion.findFirstOrThrow({ where: { entryId: row.id } });
      expect(JSON.stringify(stored.snapshot)).not.toContain('secret');
    });

    it('unpublish clears pointer and published copy, keeps versions; again is a no-op', async () => {
      const uuid = await createEntry(t, p, 'posts', { title: 'Going away' });
      await t.request({ method: 'POST', url: url(uuid, '/publish'), headers: p.headers });
      await t.request({ method: 'POST', url: url(uuid, '/publish'), headers: p.headers });
      const before = await t.database.prisma.outboxEvent.count({ where: { entryUuid: uuid, event: 'content.unpublished' } });
      const res = await t.request({ method: 'POST', url: url(uuid, '/unpublish'), headers: p.headers });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Content unpublished.' });
      const row = await entryRow(t, uuid);
      expect(row).toMatchObject({ state: 'draft', publishedVersionId: null, publishedVersionNumber: null, publishedData: null, lastVersionNumber: 2 });
      const list = await t.request({ method: 'GET', url: url(uuid, '/versions'), headers: p.headers });
      expect(list.body.data.map((v: { version_number: number; is_current_published: boolean }) => [v.version_number, v.is_current_published])).toEqual([[2, false], [1, false]]);
      const again = await t.request({ method: 'POST', url: url(uuid, '/unpublish'), headers: p.headers });
      expect(again.status).toBe(200);
      expect(await t.database.prisma.outboxEvent.count({ where: { entryUuid: uuid, event: 'content.unpublished' } })).toBe(before + 1);
      // Publishing again continues the numbering.
      const next = await t.request({ method: 'POST', url: url(uuid, '/publish'), headers: p.headers });
      expect(next.body.version_number).toBe(3);
    });

    it('writes content.published / content.unpublished events with the entry resource', async () => {
      const uuid = await createEntry(t, p, 'posts', { title: 'Evented' });
      await t.request({ method: 'POST', url: url(uuid, '/publish'), headers: p.headers });
      await t.request({ method: 'POST', url: url(uuid, '/unpublish'), headers: p.headers });
      const events = await t.database.prisma.outboxEvent.findMany({ where: { entryUuid: uuid, event: { startsWith: 'content.' } }, orderBy: { id: 'asc' } });
      const mine = events.filter((e) => e.event === 'content.published' || e.event === 'content.unpublished');
      expect(mine.map((e) => e.event)).toEqual(['content.published', 'content.unpublished']);
      expect(mine[0].payload).toMatchObject({
        collection: { slug: 'posts' },
        entry_uuid: uuid,
        locale: 'en',
        content_entry: { uuid, state: 'published', published_version_number: 1, fields: { title: 'Evented' } },
      });
      expect(mine[1].payload).toMatchObject({ content_entry: { uuid, state: 'draft', published_version_number: null } });
    });

    it('404s name the missing thing; a non-integer version is 404 too', async () => {
      const uuid = await createEntry(t, p, 'posts', { title: 'x' });
      await t.request({ method: 'POST', url: url(uuid, '/publish'), headers: p.headers });
      const cases: Array<[string, string, string]> = [
        ['GET', `/api/nope/${uuid}/versions`, 'Collection not found.'],
        ['POST', `/api/nope/${uuid}/publish`, 'Collection not found.'],
        ['GET', '/api/posts/00000000-0000-4000-8000-000000000000/versions', 'Entry not found.'],
        ['GET', '/api/posts/not-a-uuid/versions', 'Entry not found.'],
        ['POST', '/api/posts/not-a-uuid/publish', 'Entry not found.'],
        ['POST', '/api/posts/00000000-0000-4000-8000-000000000000/unpublish', 'Entry not found.'],
        ['GET', url(uuid, '/versions/99'), 'Version not found.'],
        ['GET', url(uuid, '/versions/abc'), 'Version not found.'],
        ['GET', url(uuid, '/versions/1.5'), 'Version not found.'],
        ['GET', url(uuid, '/versions/0'), 'Version not found.'],
        ['GET', url(uuid, '/versions/99999999999'), 'Version not found.'],
        ['PATCH', url(uuid, '/versions/42'), 'Version not found.'],
        ['POST', url(uuid, '/versions/42/revert'), 'Version not found.'],
      ];
      for (const [method, path, message] of cases) {
        const res = await t.request({ method, url: path, headers: p.headers, body: method === 'PATCH' ? { label: 'x' } : undefined });
        expect([path, res.status, res.body]).toEqual([path, 404, { message }]);
      }
    });

    it('a soft-deleted entry has no versions to show and cannot be published', async () => {
      const uuid = await createEntry(t, p, 'posts', { title: 'Trash' });
      await t.request({ method: 'POST', url: url(uuid, '/publish'), headers: p.headers });
      await t.database.prisma.entry.update({ where: { uuid }, data: { deletedAt: new Date() } });
      for (const [method, path] of [['GET', url(uuid, '/versions')], ['POST', url(uuid, '/publish')], ['POST', url(uuid, '/versions/1/revert')]]) {
        const res = await t.request({ method, url: path, headers: p.headers });
        expect(res.status).toBe(404);
        expect(res.body.message).toBe('Entry not found.');
      }
    });

    it('abilities: read lists and reads; update publishes, unpublishes, labels and reverts', async () => {
      const uuid = await createEntry(t, p, 'posts', { title: 'Guarded' });
      await t.request({ method: 'POST', url: url(uuid, '/publish'), headers: p.headers });
      const reader = await p.tokenWith(['read']);
      const writer = await p.tokenWith(['update']);
      for (const path of ['/versions', '/versions/1', '/versions/1/diff?to=1']) {
        expect((await t.request({ method: 'GET', url: url(uuid, path), headers: reader })).status).toBe(200);
        expect((await t.request({ method: 'GET', url: url(uuid, path), headers: writer })).status).toBe(403);
      }
      const writes: Array<[string, string, unknown]> = [
        ['POST', '/publish', undefined],
        ['POST', '/unpublish', undefined],
        ['PATCH', '/versions/1', { label: 'x' }],
        ['POST', '/versions/1/revert', undefined],
      ];
      for (const [method, path, body] of writes) {
        const denied = await t.request({ method, url: url(uuid, path), headers: reader, body });
        expect(denied.status).toBe(403);
        expect(denied.body.message).toMatch(/"update" or "\*"/);
      }
      for (const [method, path, body] of writes) {
        expect((await t.request({ method, url: url(uuid, path), headers: writer, body })).status).toBe(200);
      }
    });

    it('a version of another project is unknown', async () => {
      const other = await t.project({ name: 'Other' });
      await setupCollections(t, other);
      const uuid = await createEntry(t, p, 'posts', { title: 'Mine' });
      await t.request({ method: 'POST', url: url(uuid, '/publish'), headers: p.headers });
      const res = await t.request({ method: 'GET', url: url(uuid, '/versions/1'), headers: other.headers });
      expect(res.status).toBe(404);
      expect(res.body.message).toBe('Entry not found.');
    });
  });
}
