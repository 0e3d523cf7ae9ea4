import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { bulkProject, postItems, type BulkProject } from './helpers.ts';

describe('bulk update', () => {
  let t: TestApp;
  let b: BulkProject;
  beforeAll(async () => {
    t = await startTestApp();
    b = await bulkProject(t);
  });
  afterAll(() => t.close());

  const makePosts = async (n: number, state?: string): Promise<string[]> => {
    const res = await b.create('posts', { items: postItems(n, () => (state ? { state } : {})) });
    expect(res.status).toBe(201);
    return res.body.data.map((e: { uuid: string }) => e.uuid);
  };

  it('patches only the keys sent, in input order (200); no state leaves publish state alone', async () => {
    const [a, c] = await makePosts(2, 'published');
    const res = await b.update('posts', { items: [{ uuid: c, data: { views: 99 } }, { uuid: a.toUpperCase(), data: {} }] });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Bulk content updated successfully.');
    expect(res.body.data.map((e: { uuid: string }) => e.uuid)).toEqual([c, a]);
    expect(res.body.data[0]).toMatchObject({ fields: { title: 'Post 1', views: 99 }, state: 'published', published_version_number: 1, is_draft_dirty: true });
    // Saving never mints: the published copy still shows the old value.
    expect((await b.req('GET', `/api/posts/${c}`)).body.fields.views).toBe(1);
    const events = await b.events([a, c]);
    expect(events.filter((e) => e.event === 'content.updated').map((e) => e.entryUuid)).toEqual([c, a]);
    expect(events.filter((e) => e.event === 'content.published')).toHaveLength(2); // from the create only
  });

  it('state=published publishes after the update (new version); state=draft unpublishes', async () => {
    const [a, c, d] = await makePosts(3, 'published');
    const [draft] = await makePosts(1);
    const res = await b.update('posts', {
      items: [
        { uuid: a, state: 'published', data: { title: 'A2' } },
        { uuid: c, state: 'draft', data: {} },
        { uuid: draft, state: 'draft', data: { views: 5 } },
        { uuid: d, state: 'nonsense', data: { views: 7 } },
      ],
    });
    expect(res.status).toBe(200);
    const [ra, rc, rdraft, rd] = res.body.data;
    expect(ra).toMatchObject({ state: 'published', published_version_number: 2, is_draft_dirty: false, fields: { title: 'A2' } });
    expect((await b.req('GET', `/api/posts/${a}`)).body.fields.title).toBe('A2');
    expect((await b.req('GET', `/api/posts/${a}/versions`)).body.data.map((v: { version_number: number }) => v.version_number)).toEqual([2, 1]);

    expect(rc).toMatchObject({ state: 'draft', published_version_id: null, published_version_number: null });
    expect((await b.req('GET', `/api/posts/${c}`)).status).toBe(404);
    expect((await b.req('GET', `/api/posts/${c}/versions`)).body.data).toHaveLength(1); // versions are kept
    expect(rdraft).toMatchObject({ state: 'draft', fields: { views: 5 } });
    expect(rd).toMatchObject({ state: 'published', published_version_number: 1, fields: { views: 7 } });

    const kinds = async (uuid: string) => (await b.events([uuid])).map((e) => e.event).filter((e) => e !== 'content.created');
    expect(await kinds(a)).toEqual(['content.published', 'content.updated', 'content.published']);
    expect(await kinds(c)).toEqual(['content.published', 'content.updated', 'content.unpublished']);
    expect(await kinds(draft)).toEqual(['content.updated']); // unpublishing a draft changes nothing
    expect(await kinds(d)).toEqual(['content.published', 'content.updated']);
    const published = (await b.events([a])).at(-1)!.payload as { content_entry: { published_version_number: number; fields: { title: string } } };
    expect(published.content_entry).toMatchObject({ published_version_number: 2, fields: { title: 'A2' } });
  });

  it('unknown and trashed UUIDs: 422 whose message lists every missing UUID; nothing written', async () => {
    const [a, trashed] = await makePosts(2);
    expect((await b.req('DELETE', `/api/posts/${trashed}`)).status).toBe(200);
    const stranger = (await b.create('authors', { items: [{ data: { name: 'x' } }] })).body.data[0].uuid;
    const ghost = '00000000-0000-4000-8000-000000000000';
    const before = await b.counts();
    const res = await b.update('posts', {
      items: [
        { uuid: a, state: 'published', data: { title: 'changed' } },
        { uuid: ghost, data: {} },
        { uuid: trashed, data: {} },
        { uuid: stranger, data: {} },
      ],
    });
    expect(res.status).toBe(422);
    for (const u of [ghost, trashed, stranger]) expect(res.body.message).toContain(u);
    expect(res.body.message).not.toContain(a);
    expect(Object.keys(res.body.errors).sort()).toEqual(['items.1.uuid', 'items.2.uuid', 'items.3.uuid']);
    expect(await b.counts()).toEqual(before);
    expect((await b.row(a)).data).toMatchObject({ title: 'Post 0' });
  });

  it('a failure after the writes rolls back every item: drafts, versions, pointers and events', async () => {
    const [a, c] = await makePosts(2, 'published');
    const before = { counts: await b.counts(), a: await b.row(a), c: await b.row(c) };
    await t.database.query(`CREATE FUNCTION bulk_fail_outbox_u() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$`);
    await t.database.query(`CREATE TRIGGER bulk_fail_outbox_u BEFORE INSERT ON outbox_events FOR EACH ROW EXECUTE FUNCTION bulk_fail_outbox_u()`);
    try {
      const res = await b.update('posts', { items: [{ uuid: a, state: 'published', data: { title: 'new' } }, { uuid: c, state: 'draft', data: {} }] });
      expect(res.status).toBe(500);
    } finally {
      await t.database.query('DROP TRIGGER bulk_fail_outbox_u ON outbox_events');
      await t.database.query('DROP FUNCTION bulk_fail_outbox_u()');
    }
    expect(await b.counts()).toEqual(before.counts);
    expect(await b.row(a)).toEqual(before.a);
    expect(await b.row(c)).toEqual(before.c);
  });

  it('per-index errors: field values, locale, uuid shape, duplicate UUIDs on the later index', async () => {
    const [a, c] = await makePosts(2);
    const before = await b.counts();
    const res = await b.update('posts', {
      items: [
        { uuid: a, data: { views: 'lots' } },
        { uuid: c, locale: 'xx', data: {} },
        { uuid: 'not-a-uuid', data: {} },
        { data: {} },
        { uuid: a.toUpperCase(), data: {} },
        { uuid: c },
        { uuid: c, data: 'x' },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toMatchObject({
      'items.0.data.views': [expect.any(String)],
      'items.1.locale': [expect.any(String)],
      'items.2.uuid': ['The items.2.uuid field must be a valid UUID.'],
      'items.3.uuid': ['The items.3.uuid field is required.'],
      'items.4.uuid': ['The items.4.uuid field has a duplicate value.'],
      'items.5.data': ['The items.5.data field is required.'],
      'items.6.uuid': ['The items.6.uuid field has a duplicate value.'],
    });
    expect(await b.counts()).toEqual(before);
    // PATCH semantics: a required field not sent is not required.
    expect((await b.update('posts', { items: [{ uuid: a, data: { views: 3 } }] })).status).toBe(200);
  });

  it('singleton: moving to a locale another entry holds fails for its index, swaps within one request included', async () => {
    const made = await b.create('settings', { items: [{ locale: 'en', data: { 'site-name': 'EN' } }] });
    const en = made.body.data[0].uuid;
    const other = await bulkProject(t);
    const two = await other.create('settings', { items: [{ locale: 'en', data: {} }, { locale: 'de', data: {} }] });
    const [x, y] = two.body.data.map((e: { uuid: string }) => e.uuid);
    // Swapping is a collision under this rule: each target locale is held by the other row at check time.
    const swap = await other.update('settings', { items: [{ uuid: x, locale: 'de', data: {} }, { uuid: y, locale: 'en', data: {} }] });
    expect(swap.status).toBe(422);
    expect(Object.keys(swap.body.errors).sort()).toEqual(['items.0.locale', 'items.1.locale']);
    const same = await b.update('settings', { items: [{ uuid: en, locale: 'en', data: { 'site-name': 'again' } }] });
    expect(same.status).toBe(200);
  });

  it('items limits and body shape', async () => {
    expect((await b.update('posts', {})).body.errors).toEqual({ items: ['The items field is required.'] });
    const tooMany = Array.from({ length: 51 }, () => ({ uuid: '00000000-0000-4000-8000-000000000000', data: {} }));
    const res = await b.update('posts', { items: tooMany });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ items: ['The items field must not have more than 50 items.'] });
    expect((await b.update('posts', { items: [] })).status).toBe(422);
  });

  it('abilities and unknown collection', async () => {
    const [a] = await makePosts(1);
    const body = { items: [{ uuid: a, data: { views: 1 } }] };
    expect((await b.update('posts', body, await b.p.tokenWith(['create', 'delete', 'read']))).status).toBe(403);
    expect((await b.update('posts', body, await b.p.tokenWith(['update']))).status).toBe(200);
    const missing = await b.update('nope', body);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('Collection not found.');
  });
});
