import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { contentProject } from './helpers.ts';
import { verifyPassword } from '../../src/entries/values/password.ts';

describe('entry writes: rules, PUT vs PATCH, locales, singletons, events', () => {
  let t: TestApp;
  let c: Awaited<ReturnType<typeof contentProject>>;
  const outbox = (uuid: string) =>
    t.database.prisma.outboxEvent.findMany({ where: { entryUuid: uuid }, orderBy: { id: 'asc' } });
  beforeAll(async () => {
    t = await startTestApp();
    c = await contentProject(t, { locales: ['en', 'de', 'fr'] });
    await c.collection('articles', [
      { name: 'title', type: 'text', validations: { required: { status: true, message: 'Give it a title.' } } },
      { name: 'code', type: 'text', validations: { unique: { status: true } } },
      { name: 'rank', type: 'number', validations: { unique: { status: true } } },
      { name: 'slug', type: 'slug', options: { slug: { field: 'title' } } },
      { name: 'pin', type: 'password' },
      { name: 'note', type: 'text' },
    ]);
    await c.collection('settings', [{ name: 'site-name', type: 'text' }], { isSingleton: true });
  });
  afterAll(() => t.close());

  it('required uses the custom message; unknown keys are ignored', async () => {
    const r = await c.create('articles', { data: { note: 'x', nope: 1 } });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ message: 'Give it a title.', errors: { 'data.title': ['Give it a title.'] } });
  });

  it('unique is per collection + locale, ignores trashed entries and the entry itself', async () => {
    const a = await c.create('articles', { data: { title: 'A', code: 'X1', rank: 1 } });
    expect(a.status).toBe(201);
    const dup = await c.create('articles', { data: { title: 'B', code: 'X1', rank: 1 } });
    expect(dup.status).toBe(422);
    expect(Object.keys(dup.body.errors).sort()).toEqual(['data.code', 'data.rank']);
    expect(dup.body.errors['data.code'][0]).toBe('The code has already been taken.');
    const otherLocale = await c.create('articles', { locale: 'de', data: { title: 'B', code: 'X1', rank: 1 } });
    expect(otherLocale.status).toBe(201);
    const self = await c.put('articles', a.body.uuid, { data: { title: 'A2', code: 'X1', rank: 1 } });
    expect(self.status).toBe(200);
    expect((await c.del('articles', a.body.uuid)).status).toBe(200);
    const reuse = await c.create('articles', { data: { title: 'C', code: 'X1', rank: 1 } });
    expect(reuse.status).toBe(201);
  });

  it('slugs are generated with -2, -3 suffixes, and a given colliding slug is a 422', async () => {
    const s1 = await c.create('articles', { data: { title: 'Grüße aus Köln' } });
    const s2 = await c.create('articles', { data: { title: 'Grüße aus Köln' } });
    const s3 = await c.create('articles', { data: { title: 'Grüße aus Köln' } });
    expect([s1.body.fields.slug, s2.body.fields.slug, s3.body.fields.slug]).toEqual(['gruesse-aus-koeln', 'gruesse-aus-koeln-2', 'gruesse-aus-koeln-3']);
    const given = await c.create('articles', { data: { title: 'Other', slug: 'gruesse-aus-koeln-2' } });
    expect(given.status).toBe(422);
    expect(given.body.errors['data.slug'][0]).toMatch(/already been taken/);
    const de = await c.create('articles', { locale: 'de', data: { title: 'Grüße aus Köln' } });
    expect(de.body.fields.slug).toBe('gruesse-aus-koeln');
    // an edit of the title keeps the stored slug
    const edited = await c.patch('articles', s1.body.uuid, { data: { title: 'New title' } });
    expect(edited.body.fields.slug).toBe('gruesse-aus-koeln');
  });

  it('PUT replaces every field (missing ones cleared), PATCH touches only keys sent', async () => {
    const e = await c.create('articles', { data: { title: 'T', note: 'keep me', pin: 'secret-1' } });
    const patched = await c.patch('articles', e.body.uuid, { data: { title: 'T2' } });
    expect(patched.status).toBe(200);
    expect(patched.body.fields).toMatchObject({ title: 'T2', note: 'keep me' });
    expect(patched.body.is_draft_dirty).toBe(true);
    const patchMissingRequired = await c.patch('articles', e.body.uuid, { data: { note: 'n' } });
    expect(patchMissingRequired.status).toBe(200);
    const patchClearRequired = await c.patch('articles', e.body.uuid, { data: { title: null } });
    expect(patchClearRequired.status).toBe(422);
    expect(patchClearRequired.body.errors).toHaveProperty(['data.title']);

    const put = await c.put('articles', e.body.uuid, { data: { title: 'T3' } });
    expect(put.status).toBe(200);
    expect(put.body.fields).toMatchObject({ title: 'T3', note: null });
    const putMissingRequired = await c.put('articles', e.body.uuid, { data: { note: 'x' } });
    expect(putMissingRequired.status).toBe(422);

    // passwords: an empty value (PATCH or PUT) and a PUT without the key keep the stored hash
    const row = async () => (await t.database.prisma.entry.findUniqueOrThrow({ where: { uuid: e.body.uuid } })).data as Record<string, string>;
    expect(await verifyPassword('secret-1', (await row()).pin)).toBe(true);
    await c.patch('articles', e.body.uuid, { data: { pin: '' } });
    expect(await verifyPassword('secret-1', (await row()).pin)).toBe(true);
    await c.patch('articles', e.body.uuid, { data: { pin: 'secret-2' } });
    expect(await verifyPassword('secret-2', (await row()).pin)).toBe(true);
  });

  it('saving ignores state, never publishes and keeps the published pointer', async () => {
    const e = await c.create('articles', { state: 'published', data: { title: 'Live' } });
    expect(e.status).toBe(201);
    expect(e.body).toMatchObject({ state: 'published', published_version_number: 1, is_draft_dirty: false });
    expect(e.body.published_at).not.toBeNull();
    const u = await c.patch('articles', e.body.uuid, { state: 'draft', data: { title: 'Edited' } });
    expect(u.body).toMatchObject({ state: 'published', published_version_id: e.body.published_version_id, published_version_number: 1, is_draft_dirty: true });
    expect(await t.database.prisma.entryVersion.count({ where: { entry: { uuid: e.body.uuid } } })).toBe(1);
    const pub = await c.get('articles', e.body.uuid);
    expect(pub.body.fields.title).toBe('Live');
    const draft = await c.get('articles', e.body.uuid, '?state=draft');
    expect(draft.body.fields.title).toBe('Edited');
    const invalid = await c.create('articles', { state: 'live', data: { title: 'x' } });
    expect(invalid.body.state).toBe('draft');
  });

  it('locale defaults to the project default, must be configured, and may move on update', async () => {
    const e = await c.create('articles', { data: { title: 'Loc' } });
    expect(e.body.locale).toBe('en');
    const bad = await c.create('articles', { locale: 'xx', data: { title: 'Loc' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.locale[0]).toMatch(/en, de, fr/);
    const upper = await c.create('articles', { locale: 'DE', data: { title: 'Loc' } });
    expect(upper.body.locale).toBe('de');
    const moved = await c.patch('articles', e.body.uuid, { locale: 'fr', data: {} });
    expect(moved.body.locale).toBe('fr');
    const badMove = await c.patch('articles', e.body.uuid, { locale: 'zz', data: {} });
    expect(badMove.status).toBe(422);
  });

  it('singleton: one entry per locale, translations auto-grouped, concurrent creates cannot both win', async () => {
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => c.create('settings', { data: { 'site-name': `S${n}` } })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422]);
    const loser = results.find((r) => r.status === 422)!;
    expect(loser.body.message).toBe('This collection is a singleton and already has an entry.');
    const de = await c.create('settings', { locale: 'de', data: { 'site-name': 'DE' } });
    expect(de.status).toBe(201);
    const rows = await t.database.prisma.entry.findMany({ where: { collection: { slug: 'settings' }, deletedAt: null } });
    expect(rows).toHaveLength(2);
    expect(rows[0].translationGroupId).not.toBeNull();
    expect(rows[0].translationGroupId).toBe(rows[1].translationGroupId);

    const list = await c.list('settings', '?state=draft');
    expect(list.status).toBe(200);
    expect(list.body.locale).toBe('en');
    const listDe = await c.list('settings', '?state=draft&locale=de');
    expect(listDe.body.fields['site-name']).toBe('DE');
    const none = await c.list('settings', '?state=draft&locale=fr');
    expect(none.status).toBe(404);
    const moveClash = await c.patch('settings', de.body.uuid, { locale: 'en', data: {} });
    expect(moveClash.status).toBe(422);
    const translated = await c.get('settings', de.body.uuid, '?state=draft&translation_locale=en');
    expect(translated.body.locale).toBe('en');
  });

  it('events: created (+published), updated, trashed, deleted without payload', async () => {
    const e = await c.create('articles', { state: 'published', data: { title: 'Evt' } });
    await c.put('articles', e.body.uuid, { data: { title: 'Evt2' } });
    await c.patch('articles', e.body.uuid, { data: { note: 'n' } });
    await c.del('articles', e.body.uuid);
    await c.del('articles', e.body.uuid, '?force=1');
    const events = await outbox(e.body.uuid);
    expect(events.map((x) => x.event)).toEqual(['content.created', 'content.published', 'content.updated', 'content.updated', 'content.trashed', 'content.deleted']);
    const created = events[0].payload as { content_entry: { uuid: string; fields: Record<string, unknown> }; collection: { slug: string } };
    expect(created.content_entry.uuid).toBe(e.body.uuid);
    expect(created.collection.slug).toBe('articles');
    expect(events[5].payload).not.toHaveProperty('content_entry');
    expect(events.every((x) => x.source === 'api')).toBe(true);
  });

  it('delete: soft hides everywhere (404 after), force removes the row; bad uuids are 404', async () => {
    const e = await c.create('articles', { state: 'published', data: { title: 'Del' } });
    const res = await c.del('articles', e.body.uuid);
    expect(res.body).toEqual({ message: 'Content deleted.' });
    expect((await c.get('articles', e.body.uuid, '?state=draft')).status).toBe(404);
    expect((await c.del('articles', e.body.uuid)).status).toBe(404);
    expect((await c.patch('articles', e.body.uuid, { data: { title: 'x' } })).status).toBe(404);
    expect(await t.database.prisma.entry.count({ where: { uuid: e.body.uuid } })).toBe(1);
    expect((await c.del('articles', e.body.uuid, '?force=true')).status).toBe(200);
    expect(await t.database.prisma.entry.count({ where: { uuid: e.body.uuid } })).toBe(0);
    expect((await c.get('articles', 'not-a-uuid')).status).toBe(404);
    expect((await c.get('nope', e.body.uuid)).body).toEqual({ message: 'Collection not found.' });
  });

  it('abilities: 403 for each write without its ability', async () => {
    const e = await c.create('articles', { data: { title: 'Auth' } });
    const readOnly = await c.p.tokenWith(['read']);
    expect((await c.create('articles', { data: { title: 'x' } }, readOnly)).status).toBe(403);
    expect((await c.patch('articles', e.body.uuid, { data: {} }, readOnly)).status).toBe(403);
    expect((await c.put('articles', e.body.uuid, { data: {} }, readOnly)).status).toBe(403);
    expect((await c.del('articles', e.body.uuid, '', readOnly)).status).toBe(403);
    expect((await c.req('POST', `/api/articles/${e.body.uuid}/link-translation`, { translation_entry_uuid: e.body.uuid }, readOnly)).status).toBe(403);
    const createOnly = await c.p.tokenWith(['create']);
    expect((await c.get('articles', e.body.uuid, '?state=draft', createOnly)).status).toBe(403);
    expect((await c.list('articles', '', createOnly)).status).toBe(403);
  });

  it('link-translation: groups entries, rejects missing, self, same-locale and foreign targets', async () => {
    const en = await c.create('articles', { data: { title: 'EN' } });
    const de = await c.create('articles', { locale: 'de', data: { title: 'DE' } });
    const fr = await c.create('articles', { locale: 'fr', data: { title: 'FR' } });
    const en2 = await c.create('articles', { data: { title: 'EN2' } });
    const link = (src: string, target: unknown) => c.req('POST', `/api/articles/${src}/link-translation`, { translation_entry_uuid: target });
    const ok = await link(en.body.uuid, de.body.uuid);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ message: 'Translation linked successfully.', translation_group_id: expect.any(Number) });
    const ok2 = await link(fr.body.uuid, en.body.uuid);
    expect(ok2.body.translation_group_id).toBe(ok.body.translation_group_id);
    expect((await c.get('articles', en.body.uuid, '?state=draft&translation_locale=fr')).body.uuid).toBe(fr.body.uuid);
    expect((await c.get('articles', en.body.uuid, '?state=draft&translation_locale=xx')).body.message).toBe("Translation not found for locale 'xx'.");
    expect((await c.get('articles', en2.body.uuid, '?state=draft&translation_locale=de')).body.message).toBe('This entry has no translations linked.');

    expect((await link(en.body.uuid, en.body.uuid)).status).toBe(422);
    expect((await link(en2.body.uuid, en.body.uuid)).body.errors.translation_entry_uuid[0]).toMatch(/different locale/);
    expect((await link(en.body.uuid, '00000000-0000-4000-8000-000000000000')).status).toBe(422);
    expect((await link(en.body.uuid, undefined)).status).toBe(422);
    const setting = await t.database.prisma.entry.findFirstOrThrow({ where: { collection: { slug: 'settings' } } });
    expect((await link(en.body.uuid, setting.uuid)).status).toBe(422);
    expect((await link('00000000-0000-4000-8000-000000000000', en.body.uuid)).status).toBe(404);
    // en2 (en) cannot join a group that already has an en entry
    const deAlone = await c.create('articles', { locale: 'de', data: { title: 'DE2' } });
    await link(en2.body.uuid, deAlone.body.uuid);
    expect((await link(de.body.uuid, en2.body.uuid)).body.errors.translation_entry_uuid[0]).toMatch(/already has an entry in locale/);
  });

  it('a field added through the collections API applies to the very next entry request', async () => {
    const before = await c.create('articles', { data: { title: 'Before', subtitle: 'ignored' } });
    expect(before.body.fields).not.toHaveProperty('subtitle');
    const field = await c.req('POST', '/api/collections/articles/fields', { type: 'text', label: 'Subtitle', name: 'subtitle' });
    expect(field.status).toBe(201);
    const after = await c.create('articles', { data: { title: 'After', subtitle: 'kept' } });
    expect(after.body.fields.subtitle).toBe('kept');
    const removed = await c.req('DELETE', `/api/collections/articles/fields/${field.body.uuid}`);
    expect(removed.status).toBe(204);
    expect((await c.get('articles', after.body.uuid, '?state=draft')).body.fields).not.toHaveProperty('subtitle');
  });

  it('a write that fails after inserting leaves no entry and no outbox row', async () => {
    await t.database.query(`CREATE FUNCTION fail_outbox() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$`);
    await t.database.query(`CREATE TRIGGER fail_outbox BEFORE INSERT ON outbox_events FOR EACH ROW EXECUTE FUNCTION fail_outbox()`);
    try {
      const before = await t.database.prisma.entry.count();
      const outboxBefore = await t.database.prisma.outboxEvent.count();
      const r = await c.create('articles', { state: 'published', data: { title: 'Doomed' } });
      expect(r.status).toBe(500);
      expect(await t.database.prisma.entry.count()).toBe(before);
      expect(await t.database.prisma.entryVersion.count({ where: { entry: { data: { path: ['title'], equals: 'Doomed' } } } })).toBe(0);
      expect(await t.database.prisma.outboxEvent.count()).toBe(outboxBefore);
    } finally {
      await t.database.query('DROP TRIGGER fail_outbox ON outbox_events');
    }
  });
});
