import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../src/db/client.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { contentProject } from './helpers.ts';

/**
 * The trash through the public surfaces: soft delete, list the trash, restore (with the create rules
 * checked again), force delete a trashed entry, empty the trash, and the retention purge.
 */
let t: TestApp;
let c: Awaited<ReturnType<typeof contentProject>>;

beforeAll(async () => {
  t = await startTestApp({ env: { TRASH_RETENTION_DAYS: '7' } });
  c = await contentProject(t, { locales: ['en', 'fr'] });
  await c.collection('posts', [
    { name: 'title', type: 'text' },
    { name: 'code', type: 'text', validations: { unique: { status: true } } },
    { name: 'secret', type: 'text', options: { hiddenInAPI: true } },
  ]);
  await c.collection('home', [{ name: 'headline', type: 'text' }], { isSingleton: true });
  await c.collection('trash', [{ name: 'title', type: 'text' }]);
});
afterAll(() => t?.close());

async function make(slug: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await c.create(slug, { data, ...extra });
  expect(res.status, res.text).toBe(201);
  return res.body.uuid as string;
}
async function trash(slug: string, uuid: string): Promise<void> {
  const res = await c.del(slug, uuid);
  expect(res.status, res.text).toBe(200);
}
const trashList = (slug: string, query = '', headers = c.p.headers) => c.req('GET', `/api/${slug}/trash${query}`, undefined, headers);
const restore = (slug: string, uuid: string, headers = c.p.headers) => c.req('POST', `/api/${slug}/${uuid}/restore`, undefined, headers);

describe('REST', () => {
  it('lists trashed entries as a paginator, newest first, drafts with deleted_at, hidden fields left out', async () => {
    const a = await make('posts', { title: 'list a', secret: 's3cret' });
    const b = await make('posts', { title: 'list b' }, { locale: 'fr' });
    const live = await make('posts', { title: 'list live' });
    await trash('posts', a);
    await trash('posts', b);
    const res = await trashList('posts', '?paginate=1');
    expect(res.status, res.text).toBe(200);
    expect(res.body.meta).toMatchObject({ current_page: 1, per_page: 1, total: 2, last_page: 2 });
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({ uuid: b, locale: 'fr', fields: { title: 'list b' } });
    expect(Date.parse(res.body.data[0].deleted_at)).not.toBeNaN();
    expect(res.body.links.next).toContain('page=2');
    const page2 = await trashList('posts', '?paginate=1&page=2');
    expect(page2.body.data[0]).toMatchObject({ uuid: a, fields: { title: 'list a' } });
    expect(page2.body.data[0].fields).not.toHaveProperty('secret');
    expect(JSON.stringify(page2.body)).not.toContain('s3cret');
    // The locale filter, where on the drafts, and the live entry never in the trash.
    expect((await trashList('posts', '?locale=fr')).body.data.map((e: { uuid: string }) => e.uuid)).toEqual([b]);
    expect((await trashList('posts', '?where[title][like]=list%20a')).body.data.map((e: { uuid: string }) => e.uuid)).toEqual([a]);
    expect((await trashList('posts')).body.data.map((e: { uuid: string }) => e.uuid)).not.toContain(live);
  });

  it('answers clear 4xx for bad input, unknown collections and missing abilities', async () => {
    expect((await trashList('posts', '?paginate=zero')).status).toBe(422);
    expect((await trashList('posts', '?paginate=zero')).body.errors).toHaveProperty('paginate');
    expect((await trashList('nope')).status).toBe(404);
    expect((await trashList('posts', '', await c.p.tokenWith(['create']))).status).toBe(403);
    const uuid = await make('posts', { title: 'guarded' });
    await trash('posts', uuid);
    expect((await restore('posts', uuid, await c.p.tokenWith(['read', 'delete']))).status).toBe(403);
    expect((await c.req('DELETE', '/api/posts/trash', undefined, await c.p.tokenWith(['read', 'update']))).status).toBe(403);
    expect((await restore('posts', 'not-a-uuid')).status).toBe(404);
    expect((await restore('posts', crypto.randomUUID())).status).toBe(404);
  });

  it('restores an entry with its versions and publish state; emits nothing when not in the trash (409)', async () => {
    const uuid = await make('posts', { title: 'published once' }, { state: 'published' });
    await c.patch('posts', uuid, { data: { title: 'draft after' } });
    await trash('posts', uuid);
    expect((await c.get('posts', uuid)).status).toBe(404);
    const res = await restore('posts', uuid);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ uuid, state: 'published', published_version_number: 1, is_draft_dirty: true, fields: { title: 'draft after' } });
    expect(res.body).not.toHaveProperty('deleted_at');
    expect((await c.get('posts', uuid)).body.fields.title).toBe('published once');
    expect((await c.get('posts', uuid, '/versions')).status).toBe(200);
    const again = await restore('posts', uuid);
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('The entry is not in the trash.');
    expect((await trashList('posts')).body.data.map((e: { uuid: string }) => e.uuid)).not.toContain(uuid);
  });

  it('checks unique values again: a value taken meanwhile is a 422 naming the field', async () => {
    const old = await make('posts', { title: 'old', code: 'X-1' });
    await trash('posts', old);
    const taker = await make('posts', { title: 'taker', code: 'X-1' });
    const res = await restore('posts', old);
    expect(res.status, res.text).toBe(422);
    expect(res.body.errors['data.code']).toEqual(['The code has already been taken.']);
    await c.patch('posts', taker, { data: { code: 'X-2' } });
    expect((await restore('posts', old)).status).toBe(200);
  });

  it('checks the singleton rule again, per locale', async () => {
    const first = await make('home', { headline: 'first' });
    await trash('home', first);
    const second = await make('home', { headline: 'second' });
    const res = await restore('home', first);
    expect(res.status, res.text).toBe(422);
    expect(res.body.errors.locale).toEqual(['This collection is a singleton and already has an entry.']);
    await trash('home', second);
    expect((await restore('home', first)).status).toBe(200);
    // Another locale is free: the restored French entry joins the live entries' translation group.
    const fr = await make('home', { headline: 'fr' }, { locale: 'fr' });
    await trash('home', fr);
    expect((await restore('home', fr)).status).toBe(200);
    const groups = await t.database.prisma.entry.findMany({ where: { uuid: { in: [first, fr] } }, select: { translationGroupId: true } });
    expect(new Set(groups.map((g) => g.translationGroupId)).size).toBe(1);
  });

  it('force deletes a trashed entry; empties the trash of one collection only', async () => {
    const one = await make('posts', { title: 'force me' });
    await trash('posts', one);
    const forced = await c.del('posts', one, '?force=1');
    expect(forced.status, forced.text).toBe(200);
    expect((await restore('posts', one)).status).toBe(404);
    expect(await t.database.prisma.entry.count({ where: { uuid: one } })).toBe(0);

    const x = await make('posts', { title: 'empty x' });
    const y = await make('posts', { title: 'empty y' });
    const other = await make('trash', { title: 'in the collection called trash' });
    await trash('posts', x);
    await trash('posts', y);
    await trash('trash', other);
    const before = (await trashList('posts')).body.meta.total as number;
    const res = await c.req('DELETE', '/api/posts/trash');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ message: `${before} entries deleted from the trash.`, deleted: before });
    expect((await trashList('posts')).body.meta.total).toBe(0);
    // The collection whose slug is `trash` keeps its trash at /api/trash/trash.
    const ofTrash = await trashList('trash');
    expect(ofTrash.status).toBe(200);
    expect(ofTrash.body.data.map((e: { uuid: string }) => e.uuid)).toEqual([other]);
    expect((await c.list('trash', '?state=draft')).status).toBe(200);
    expect((await c.req('DELETE', '/api/posts/trash')).body.deleted).toBe(0);
  });

  it('retention purges entries trashed longer than TRASH_RETENTION_DAYS, keeps younger ones', async () => {
    const oldOne = await make('posts', { title: 'expired' }, { state: 'published' });
    const young = await make('posts', { title: 'young' });
    await trash('posts', oldOne);
    await trash('posts', young);
    await t.database.prisma.$executeRaw(Prisma.sql`UPDATE entries SET deleted_at = now() - interval '8 days' WHERE uuid = ${oldOne}::uuid`);
    const result = await t.services.webhooks.cleanup();
    expect(result.trashed_entries).toBe(1);
    expect(await t.database.prisma.entry.count({ where: { uuid: oldOne } })).toBe(0);
    expect(await t.database.prisma.entryVersion.count({ where: { entry: { uuid: oldOne } } })).toBe(0);
    expect((await trashList('posts')).body.data.map((e: { uuid: string }) => e.uuid)).toContain(young);
    expect((await t.services.webhooks.cleanup()).trashed_entries).toBe(0);
  });
});

describe('GraphQL', () => {
  it('core: trashedEntries, restoreEntry, emptyTrash', async () => {
    await c.req('DELETE', '/api/posts/trash');
    const a = await make('posts', { title: 'gql a' });
    const b = await make('posts', { title: 'gql b' });
    await trash('posts', a);
    await trash('posts', b);
    const listed = await t.graphql(
      `{ trashedEntries(collection: "posts", perPage: 1) { total perPage data { uuid deletedAt fields } } }`,
      undefined,
      c.p.headers,
    );
    expect(listed.body.errors).toBeUndefined();
    expect(listed.body.data.trashedEntries).toMatchObject({ total: 2, perPage: 1, data: [{ uuid: b, fields: { title: 'gql b' } }] });
    expect(listed.body.data.trashedEntries.data[0].deletedAt).toMatch(/Z$/);

    const restored = await t.graphql(`mutation($u: String!) { restoreEntry(collection: "posts", uuid: $u) { uuid deletedAt fields } }`, { u: a }, c.p.headers);
    expect(restored.body.errors).toBeUndefined();
    expect(restored.body.data.restoreEntry).toEqual({ uuid: a, deletedAt: null, fields: { title: 'gql a', code: null } });
    const twice = await t.graphql(`mutation($u: String!) { restoreEntry(collection: "posts", uuid: $u) { uuid } }`, { u: a }, c.p.headers);
    expect(twice.body.errors[0].extensions.code).toBe('CONFLICT');

    const emptied = await t.graphql(`mutation { emptyTrash(collection: "posts") { message deleted } }`, undefined, c.p.headers);
    expect(emptied.body.errors).toBeUndefined();
    expect(emptied.body.data.emptyTrash.deleted).toBe(1);
    const denied = await t.graphql(`mutation { emptyTrash(collection: "posts") { deleted } }`, undefined, await c.p.tokenWith(['read']));
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('typed: trashedPosts, restorePost, emptyPostsTrash; unique conflicts are 422 field maps', async () => {
    await c.req('DELETE', '/api/posts/trash');
    const a = await make('posts', { title: 'typed a', code: 'T-1' });
    await trash('posts', a);
    const listed = await t.graphql(`{ trashedPosts(where: { title: { like: "typed" } }) { data { uuid title } pageInfo { total } } }`, undefined, c.p.headers);
    expect(listed.body.errors).toBeUndefined();
    expect(listed.body.data.trashedPosts).toEqual({ data: [{ uuid: a, title: 'typed a' }], pageInfo: { total: 1 } });

    await make('posts', { title: 'typed taker', code: 'T-1' });
    const conflict = await t.graphql(`mutation($u: ID!) { restorePost(uuid: $u) { uuid } }`, { u: a }, c.p.headers);
    expect(conflict.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(conflict.body.errors[0].extensions)).toContain('data.code');

    const b = await make('posts', { title: 'typed b' });
    await trash('posts', b);
    const restored = await t.graphql(`mutation($u: ID!) { restorePost(uuid: $u) { uuid title } }`, { u: b }, c.p.headers);
    expect(restored.body.errors).toBeUndefined();
    expect(restored.body.data.restorePost).toEqual({ uuid: b, title: 'typed b' });

    const emptied = await t.graphql(`mutation { emptyPostsTrash { deleted } }`, undefined, c.p.headers);
    expect(emptied.body.errors).toBeUndefined();
    expect(emptied.body.data.emptyPostsTrash.deleted).toBe(1);
    // Singletons get a trash too.
    const home = await t.graphql(`{ trashedHomes { pageInfo { total } } }`, undefined, c.p.headers);
    expect(home.body.errors).toBeUndefined();
  });
});

describe('embedded PGlite', () => {
  it('lists, restores, empties and purges the trash', async () => {
    const e = await startTestApp({ embedded: true, env: { TRASH_RETENTION_DAYS: '1' } });
    try {
      const ec = await contentProject(e);
      await ec.collection('notes', [{ name: 'title', type: 'text', validations: { unique: { status: true } } }]);
      const uuids: string[] = [];
      for (const title of ['one', 'two', 'three']) {
        const res = await ec.create('notes', { data: { title } });
        expect(res.status, res.text).toBe(201);
        uuids.push(res.body.uuid);
        expect((await ec.del('notes', res.body.uuid)).status).toBe(200);
      }
      expect((await ec.req('GET', '/api/notes/trash')).body.meta.total).toBe(3);
      expect((await ec.req('POST', `/api/notes/${uuids[0]}/restore`)).status).toBe(200);
      await e.database.prisma.$executeRaw(Prisma.sql`UPDATE entries SET deleted_at = now() - interval '2 days' WHERE uuid = ${uuids[1]}::uuid`);
      expect((await e.services.webhooks.cleanup()).trashed_entries).toBe(1);
      expect((await ec.req('DELETE', '/api/notes/trash')).body.deleted).toBe(1);
      expect((await ec.req('GET', '/api/notes/trash')).body.meta.total).toBe(0);
      expect((await ec.list('notes', '?state=draft')).body.map((x: { uuid: string }) => x.uuid)).toEqual([uuids[0]]);
    } finally {
      await e.close();
    }
  });
});
