import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createCollection } from '../../helpers/fixtures.ts';
import { bulkProject, postItems, type BulkProject } from './helpers.ts';

for (const embedded of [false, true]) {
  describe(`bulk create (${embedded ? 'PGlite' : 'PostgreSQL'})`, () => {
    let t: TestApp;
    let b: BulkProject;
    beforeAll(async () => {
      t = await startTestApp({ embedded });
      b = await bulkProject(t);
    });
    afterAll(() => t.close());

    it('creates every item in input order (201), default locale, invalid state = draft', async () => {
      const author = await b.single('authors', { data: { name: 'Ann' } });
      const res = await b.create('posts', {
        items: [
          { data: { title: 'A', views: 1, author: author.uuid } },
          { locale: 'de', state: 'bogus', data: { title: 'B' } },
          { locale: 'EN', state: 'draft', data: { title: 'C', unknown: 1 } },
        ],
      });
      expect(res.status).toBe(201);
      expect(res.body.message).toBe('Bulk content created successfully.');
      expect(res.body.data.map((e: { fields: { title: string } }) => e.fields.title)).toEqual(['A', 'B', 'C']);
      expect(res.body.data.map((e: { locale: string }) => e.locale)).toEqual(['en', 'de', 'en']);
      for (const e of res.body.data) {
        expect(e).toMatchObject({ state: 'draft', published_version_id: null, published_version_number: null, is_draft_dirty: true });
        expect(e.fields).not.toHaveProperty('unknown');
      }
      // Relations are hydrated as on a single create.
      expect(res.body.data[0].fields.author).toMatchObject({ uuid: author.uuid, fields: { name: 'Ann' } });
      const read = await b.req('GET', `/api/posts/${res.body.data[1].uuid}?state=draft`);
      expect(read.body.fields.title).toBe('B');
    });

    it('state=published publishes on create: version 1, created + published events per item', async () => {
      const res = await b.create('posts', { items: [{ state: 'published', data: { title: 'P1' } }, { data: { title: 'D1' } }, { state: 'published', data: { title: 'P2' } }] });
      expect(res.status).toBe(201);
      const [p1, d1, p2] = res.body.data;
      for (const e of [p1, p2]) {
        expect(e).toMatchObject({ state: 'published', published_version_number: 1, is_draft_dirty: false });
        expect(e.published_version_id).toEqual(expect.any(Number));
        expect(e.published_at).toMatch(/^\d{4}-/);
      }
      expect(d1).toMatchObject({ state: 'draft', published_version_number: null });
      const versions = await b.req('GET', `/api/posts/${p1.uuid}/versions`);
      expect(versions.body.data.map((v: { version_number: number }) => v.version_number)).toEqual([1]);
      expect((await b.req('GET', `/api/posts/${p2.uuid}`)).body.fields.title).toBe('P2');

      const events = await b.events([p1.uuid, d1.uuid, p2.uuid]);
      expect(events.map((e) => [e.entryUuid, e.event])).toEqual([
        [p1.uuid, 'content.created'],
        [p1.uuid, 'content.published'],
        [d1.uuid, 'content.created'],
        [p2.uuid, 'content.created'],
        [p2.uuid, 'content.published'],
      ]);
      const payload = events[1].payload as { content_entry: { uuid: string; published_version_number: number }; collection: { slug: string } };
      expect(payload.collection.slug).toBe('posts');
      expect(payload.content_entry).toMatchObject({ uuid: p1.uuid, published_version_number: 1 });
      // Both events of a publish on create carry the whole created entry, as the response shows it.
      // `committed` is the stored row the statement wrote (what live subscriptions render from).
      expect(events[0].payload).toEqual({ collection: payload.collection, entry_uuid: p1.uuid, locale: 'en', revision: 1, updated_at: expect.any(String), content_entry: p1, committed: expect.any(Object) });
      expect((events[0].payload as { committed: unknown }).committed).toMatchObject({
        uuid: p1.uuid,
        state: 'published',
        published_version_id: p1.published_version_id,
        published_data: { title: 'P1' },
        data: { title: 'P1' },
      });
      expect(events[1].payload).toEqual(events[0].payload);
      expect((events[2].payload as { content_entry: unknown }).content_entry).toEqual(d1);
      expect(events.every((e) => e.source === 'api')).toBe(true);
    });

    it('published on create leaves the same rows as a draft create followed by a publish (snapshot, copy, no password)', async () => {
      const db = t.database.prisma;
      const secret = await createCollection(db, b.p.id, {
        slug: `vault-${Math.random().toString(36).slice(2, 8)}`,
        fields: [
          { name: 'label', type: 'text' },
          { name: 'pin', type: 'password' },
        ],
      });
      const data = (i: number) => ({ label: `L${i}`, pin: `secret-pin-${i}` });
      const created = await b.create(secret.slug, { items: [0, 1, 2].map((i) => ({ state: 'published', locale: i === 1 ? 'de' : 'en', data: data(i) })) });
      expect(created.status).toBe(201);
      const drafts = await b.create(secret.slug, { items: [0, 1, 2].map((i) => ({ locale: i === 1 ? 'de' : 'en', data: data(i) })) });
      for (const d of drafts.body.data) expect((await b.req('POST', `/api/${secret.slug}/${d.uuid}/publish`)).status).toBe(200);

      const shape = async (uuid: string) => {
        const row = await db.entry.findUniqueOrThrow({ where: { uuid } });
        const versions = await db.entryVersion.findMany({ where: { entryId: row.id } });
        expect(versions).toHaveLength(1);
        const [v] = versions;
        expect(row.publishedVersionId).toBe(v.id);
        return {
          state: row.state,
          dirty: row.isDraftDirty,
          number: row.publishedVersionNumber,
          last: row.lastVersionNumber,
          publishedAt: row.publishedAt !== null,
          publishedData: row.publishedData,
          hash: typeof (row.data as { pin?: unknown }).pin,
          version: { number: v.versionNumber, locale: v.locale, group: v.translationGroupId, snapshot: v.snapshot, token: v.createdByTokenId !== null },
        };
      };
      for (let i = 0; i < 3; i++) {
        const a = await shape(created.body.data[i].uuid);
        expect(a).toEqual(await shape(drafts.body.data[i].uuid));
        expect(a.publishedData).toEqual({ label: `L${i}` });
        expect(a.version.snapshot).toEqual({ fields: { label: `L${i}` }, meta: { locale: i === 1 ? 'de' : 'en', translation_group_id: null } });
      }
      // Singleton rows published on create carry their translation group into the snapshot.
      const site = await createCollection(db, b.p.id, { slug: `${secret.slug}-site`, isSingleton: true, fields: [{ name: 'site-name', type: 'text' }] });
      const single = await b.create(site.slug, { items: [{ locale: 'en', state: 'published', data: { 'site-name': 'S' } }] });
      expect(single.status).toBe(201);
      const row = await db.entry.findUniqueOrThrow({ where: { uuid: single.body.data[0].uuid } });
      const version = await db.entryVersion.findUniqueOrThrow({ where: { id: row.publishedVersionId! } });
      expect(row.translationGroupId).not.toBeNull();
      expect(version.snapshot).toEqual({ fields: { 'site-name': 'S' }, meta: { locale: 'en', translation_group_id: row.translationGroupId } });
    });

    it('validates every item before writing: per-index keys, nothing stored', async () => {
      const before = await b.counts();
      const res = await b.create('posts', {
        items: [
          { data: { title: 'ok' } },
          { locale: 'fr', data: { title: 'x' } },
          { data: { views: 'many' } },
          'not an object',
          { data: [1, 2] },
          { state: 'published' },
          { state: 'published', data: { title: 'fine', author: '00000000-0000-4000-8000-000000000000' } },
        ],
      });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors).sort()).toEqual(
        ['items.1.locale', 'items.2.data.title', 'items.2.data.views', 'items.3', 'items.4.data', 'items.5.data', 'items.6.data.author'].sort(),
      );
      expect(res.body.errors['items.3']).toEqual(['The items.3 field must be an object.']);
      expect(res.body.errors['items.5.data']).toEqual(['The items.5.data field is required.']);
      expect(typeof res.body.message).toBe('string');
      expect(await b.counts()).toEqual(before);
    });

    it('body shape errors are 422 on items', async () => {
      const cases: Array<[unknown, string]> = [
        [{}, 'The items field is required.'],
        [{ items: 'x' }, 'The items field must be an array.'],
        [{ items: {} }, 'The items field must be an array.'],
        [{ items: [] }, 'The items field must have at least 1 items.'],
        [{ items: postItems(51) }, 'The items field must not have more than 50 items.'],
        [[1, 2], 'The items field is required.'],
      ];
      for (const [body, message] of cases) {
        const res = await b.create('posts', body);
        expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(422);
        expect(res.body.errors.items).toEqual([message]);
      }
      expect((await b.create('posts', { items: postItems(50) })).status).toBe(201);
    });

    it('unique values collide within the request and with stored rows, per index', async () => {
      await b.single('posts', { data: { title: 't', code: 'taken' } });
      const res = await b.create('posts', {
        items: [{ data: { title: 'a', code: 'fresh' } }, { data: { title: 'b', code: 'taken' } }, { data: { title: 'c', code: 'fresh' } }],
      });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors).sort()).toEqual(['items.1.data.code', 'items.2.data.code']);
    });

    it('singleton: a second entry for a locale fails for its index, within the request too', async () => {
      const before = await b.counts();
      const clash = await b.create('settings', { items: [{ data: { 'site-name': 'A' } }, { locale: 'de', data: {} }, { locale: 'en', data: {} }] });
      expect(clash.status).toBe(422);
      expect(clash.body.errors).toEqual({ 'items.2.locale': ['This collection is a singleton and already has an entry.'] });
      expect(await b.counts()).toEqual(before);

      const ok = await b.create('settings', { items: [{ data: { 'site-name': 'A' } }, { locale: 'de', state: 'published', data: { 'site-name': 'B' } }] });
      expect(ok.status).toBe(201);
      const again = await b.create('settings', { items: [{ locale: 'de', data: {} }] });
      expect(again.status).toBe(422);
      expect(again.body.errors).toEqual({ 'items.0.locale': ['This collection is a singleton and already has an entry.'] });
      // Singleton rows share one translation group, as single creates do.
      const rows = await t.database.prisma.entry.findMany({ where: { collectionId: b.ids.settings } });
      expect(new Set(rows.map((r) => r.translationGroupId)).size).toBe(1);
      expect(rows[0].translationGroupId).not.toBeNull();
    });

    it('a failure after the inserts rolls back everything: no entry, no version, no outbox row', async () => {
      await t.database.query(`CREATE FUNCTION bulk_fail_outbox() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$`);
      await t.database.query(`CREATE TRIGGER bulk_fail_outbox BEFORE INSERT ON outbox_events FOR EACH ROW EXECUTE FUNCTION bulk_fail_outbox()`);
      try {
        const before = await b.counts();
        const res = await b.create('posts', { items: postItems(5, () => ({ state: 'published' })) });
        expect(res.status).toBe(500);
        expect(await b.counts()).toEqual(before);
      } finally {
        await t.database.query('DROP TRIGGER bulk_fail_outbox ON outbox_events');
        await t.database.query('DROP FUNCTION bulk_fail_outbox()');
      }
    });

    it('401, 403, 404', async () => {
      const body = { items: postItems(1) };
      expect((await b.create('posts', body, { 'project-id': b.p.uuid })).status).toBe(401);
      expect((await b.create('posts', body, { authorization: b.p.headers.authorization })).status).toBe(400);
      const readOnly = await b.p.tokenWith(['read', 'update', 'delete']);
      const denied = await b.create('posts', body, readOnly);
      expect(denied.status).toBe(403);
      // The ability is checked before the body: no 422 leaks to a token that may not create.
      expect((await b.create('posts', {}, readOnly)).status).toBe(403);
      expect((await b.create('posts', body, await b.p.tokenWith(['create']))).status).toBe(201);
      const missing = await b.create('nope', body);
      expect(missing.status).toBe(404);
      expect(missing.body.message).toBe('Collection not found.');
    });
  });
}
