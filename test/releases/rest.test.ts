import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { World } from '../helpers/world.ts';
import { entry, release, releaseWorld } from './helpers.ts';

/** Releases over REST: administration, limits, and the all-or-nothing publish across collections. */
describe('releases (REST)', () => {
  let w: World;
  beforeAll(async () => {
    w = await releaseWorld();
  });
  afterAll(() => w.close());

  it('creates, reads, lists newest first with a status filter, updates and deletes a release', async () => {
    const made = await w.api('POST', '/api/releases', { title: 'Spring', description: 'the spring launch' });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ title: 'Spring', description: 'the spring launch', status: 'open', publish_at: null, published_at: null, items: [], errors: null });
    const id = made.body.data.id;
    const second = (await w.api('POST', '/api/releases', { title: 'Summer' })).body.data;

    const got = await w.api('GET', `/api/releases/${id}`);
    expect(got.body.data.id).toBe(id);
    const list = await w.api('GET', '/api/releases?paginate=1');
    expect(list.body.data.map((r: { id: string }) => r.id)).toEqual([second.id]);
    expect(list.body.meta.total).toBeGreaterThanOrEqual(2);
    const open = await w.api('GET', '/api/releases?status=published');
    expect(open.body.data.every((r: { status: string }) => r.status === 'published')).toBe(true);
    expect((await w.api('GET', '/api/releases?status=nope')).status).toBe(422);

    const patched = await w.api('PATCH', `/api/releases/${id}`, { title: 'Spring!' });
    expect(patched.body.data).toMatchObject({ title: 'Spring!', description: 'the spring launch' });
    expect((await w.api('POST', '/api/releases', { title: '' })).status).toBe(422);

    expect((await w.api('DELETE', `/api/releases/${second.id}`)).status).toBe(204);
    expect((await w.api('GET', `/api/releases/${second.id}`)).status).toBe(404);
    expect((await w.api('GET', '/api/releases/not-a-uuid')).status).toBe(404);
  });

  it('refuses a token limited to collections on every release route, and its OpenAPI document lists none (GraphQL: test/releases/graphql.test.ts); a release-bound preview token sees its own release only', async () => {
    const r = await release(w, [], 'Scoped');
    const other = await release(w, [], 'Other');
    const scoped = await w.api('POST', '/api/project/tokens', { name: 'posts only', abilities: ['read', 'update'], collections: ['posts'] });
    expect(scoped.status, scoped.text).toBe(201);
    const h = { 'project-id': w.p.uuid, authorization: `Bearer ${scoped.body.data.token}` };
    for (const [method, url, body] of [
      ['GET', '/api/releases'],
      ['GET', `/api/releases/${r.id}`],
      ['POST', '/api/releases', { title: 'x' }],
      ['PATCH', `/api/releases/${r.id}`, { title: 'y' }],
      ['POST', `/api/releases/${r.id}/publish`],
    ] as const) {
      const res = await w.api(method, url, body, h);
      expect(res.status, `${method} ${url}: ${res.text}`).toBe(403);
    }
    // Its OpenAPI document lists no release route, as its typed GraphQL schema lists no release operation.
    const releasePaths = async (headers: Record<string, string>) => {
      const doc = (await w.api('GET', '/api/openapi.json', undefined, headers)).body;
      return { paths: Object.keys(doc.paths).filter((p) => p.startsWith('/api/releases')), tagged: doc.tags.some((t: { name: string }) => t.name === 'releases') };
    };
    expect(await releasePaths(h)).toEqual({ paths: [], tagged: false });
    const full = await releasePaths(w.p.headers);
    expect(full.paths).toContain('/api/releases/{release}/publish');
    expect(full.tagged).toBe(true);

    const preview = await w.api('POST', '/api/preview-tokens', { expires_in: 600, release: r.id });
    const ph = { 'project-id': w.p.uuid, authorization: `Bearer ${preview.body.data.token}` };
    expect((await w.api('GET', '/api/releases', undefined, ph)).body.data.map((x: { id: string }) => x.id)).toEqual([r.id]);
    expect((await w.api('GET', `/api/releases/${r.id}`, undefined, ph)).status).toBe(200);
    expect((await w.api('GET', `/api/releases/${other.id}`, undefined, ph)).status).toBe(404);
  });

  it('needs read to look and update to change (abilities)', async () => {
    const r = await release(w, []);
    const { reader, creator, editor } = w.tokens;
    expect((await w.api('GET', '/api/releases', undefined, reader)).status).toBe(200);
    expect((await w.api('GET', `/api/releases/${r.id}`, undefined, reader)).status).toBe(200);
    expect((await w.api('POST', '/api/releases', { title: 'x' }, reader)).status).toBe(403);
    expect((await w.api('POST', '/api/releases', { title: 'x' }, creator)).status).toBe(403);
    expect((await w.api('PATCH', `/api/releases/${r.id}`, { title: 'x' }, reader)).status).toBe(403);
    expect((await w.api('DELETE', `/api/releases/${r.id}`, undefined, reader)).status).toBe(403);
    expect((await w.api('POST', `/api/releases/${r.id}/items`, { items: [] }, reader)).status).toBe(403);
    expect((await w.api('POST', `/api/releases/${r.id}/publish`, undefined, reader)).status).toBe(403);
    expect((await w.api('POST', '/api/releases', { title: 'x' }, editor)).status).toBe(201);
    expect((await w.api('POST', `/api/releases/${r.id}/publish`, undefined, editor)).status).toBe(200);
  });

  it('adds and removes items; an entry appears once per release (422); unknown entries and collections are 422 on their item', async () => {
    const a = await entry(w, 'posts', { title: 'a' });
    const b = await entry(w, 'pages', { heading: 'b' });
    const r = await release(w, [{ collection: 'posts', uuid: a, action: 'publish' }]);
    const dup = await w.api('POST', `/api/releases/${r.id}/items`, { items: [{ collection: 'posts', uuid: a, action: 'unpublish' }] });
    expect(dup.status).toBe(422);
    expect(Object.keys(dup.body.errors)).toEqual(['items.0.uuid']);
    const twice = await w.api('POST', `/api/releases/${r.id}/items`, {
      items: [{ collection: 'pages', uuid: b, action: 'publish' }, { collection: 'pages', uuid: b, action: 'publish' }],
    });
    expect(twice.status).toBe(422);
    expect(Object.keys(twice.body.errors)).toEqual(['items.1.uuid']);
    const wrong = await w.api('POST', `/api/releases/${r.id}/items`, {
      items: [{ collection: 'posts', uuid: b, action: 'publish' }, { collection: 'nope', uuid: crypto.randomUUID(), action: 'publish' }],
    });
    expect(wrong.status).toBe(422);
    expect(Object.keys(wrong.body.errors).sort()).toEqual(['items.0.uuid', 'items.1.collection']);
    const badAction = await w.api('POST', `/api/releases/${r.id}/items`, { items: [{ collection: 'pages', uuid: b, action: 'delete' }, { collection: 'pages', uuid: 'x', action: 'publish' }] });
    expect(Object.keys(badAction.body.errors).sort()).toEqual(['items.0.action', 'items.1.uuid']);

    const added = await w.api('POST', `/api/releases/${r.id}/items`, { items: [{ collection: 'pages', uuid: b, action: 'publish', locale: 'en' }] });
    expect(added.status).toBe(200);
    expect(added.body.data.items).toMatchObject([
      { collection: 'posts', uuid: a, action: 'publish', locale: null, version: null },
      { collection: 'pages', uuid: b, action: 'publish', locale: 'en', version: null },
    ]);
    const removed = await w.api('DELETE', `/api/releases/${r.id}/items/${added.body.data.items[0].id}`);
    expect(removed.status).toBe(200);
    expect(removed.body.data.items.map((i: { uuid: string }) => i.uuid)).toEqual([b]);
    expect((await w.api('DELETE', `/api/releases/${r.id}/items/${added.body.data.items[0].id}`)).status).toBe(404);
  });

  it('takes at most 100 items per call and 500 per release', async () => {
    const r = await release(w, []);
    const uuids: string[] = [];
    for (const half of [0, 1]) {
      const made = await w.api('POST', '/api/bulk/pages/entries', { items: Array.from({ length: 50 }, (_, i) => ({ data: { heading: `p${half}-${i}` } })) });
      expect(made.status, made.text).toBe(201);
      uuids.push(...made.body.data.map((e: { uuid: string }) => e.uuid));
    }
    const items = (list: string[]) => list.map((uuid) => ({ collection: 'pages', uuid, action: 'publish' }));
    const tooMany = await w.api('POST', `/api/releases/${r.id}/items`, { items: [...items(uuids), ...items(uuids.slice(0, 1))] });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors.items[0]).toContain('100');
    expect((await w.api('POST', `/api/releases/${r.id}/items`, { items: items(uuids) })).status).toBe(200);
    // 500 per release: fill to the cap straight in the table, then one more is refused.
    const id = (await w.t.database.prisma.release.findFirstOrThrow({ where: { uuid: r.id } })).id;
    const collectionId = w.c.pages.id;
    await w.t.database.prisma.releaseItem.createMany({
      data: Array.from({ length: 400 }, () => ({ uuid: crypto.randomUUID(), releaseId: id, collectionId, entryUuid: crypto.randomUUID(), action: 'publish' })),
    });
    const extra = await entry(w, 'pages', { heading: 'one more' });
    const over = await w.api('POST', `/api/releases/${r.id}/items`, { items: items([extra]) });
    expect(over.status).toBe(422);
    expect(over.body.errors.items[0]).toContain('500');
  });

  it('publishes a release over three collections in one go: drafts go live, unpublish items go back to draft, versions are reported', async () => {
    const author = await entry(w, 'authors', { name: 'Ann' });
    const post = await entry(w, 'posts', { title: 'draft post', author }, 'published');
    await w.api('PATCH', `/api/posts/${post}`, { data: { title: 'new title' } });
    const page = await entry(w, 'pages', { heading: 'old page' }, 'published');
    const r = await release(w, [
      { collection: 'authors', uuid: author, action: 'publish' },
      { collection: 'posts', uuid: post, action: 'publish' },
      { collection: 'pages', uuid: page, action: 'unpublish' },
    ]);
    const res = await w.api('POST', `/api/releases/${r.id}/publish`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.status).toBe('published');
    expect(res.body.data.published_at).toEqual(expect.any(String));
    expect(res.body.data.items.map((i: { version: number | null }) => i.version)).toEqual([1, 2, null]);

    expect((await w.api('GET', `/api/posts/${post}`)).body.fields).toMatchObject({ title: 'new title', author: { fields: { name: 'Ann' } } });
    expect((await w.api('GET', `/api/authors/${author}`)).status).toBe(200);
    expect((await w.api('GET', `/api/pages/${page}`)).status).toBe(404);

    expect((await w.api('POST', `/api/releases/${r.id}/publish`)).status).toBe(409);
    expect((await w.api('DELETE', `/api/releases/${r.id}`)).status).toBe(409);
    expect((await w.api('POST', `/api/releases/${r.id}/items`, { items: [{ collection: 'pages', uuid: page, action: 'publish' }] })).status).toBe(409);
    expect((await w.api('PATCH', `/api/releases/${r.id}`, { title: 'renamed' })).status).toBe(200);
  });

  it('changes nothing when one item fails: 422 with items.<n>.<field> errors', async () => {
    const a = await entry(w, 'posts', { title: 'will not go live' });
    const gone = await entry(w, 'pages', { heading: 'to be trashed' });
    const live = await entry(w, 'authors', { name: 'stays live' }, 'published');
    const r = await release(w, [
      { collection: 'posts', uuid: a, action: 'publish' },
      { collection: 'authors', uuid: live, action: 'unpublish' },
      { collection: 'pages', uuid: gone, action: 'publish' },
    ]);
    expect((await w.api('DELETE', `/api/pages/${gone}`)).status).toBe(200);
    const before = await w.t.database.prisma.entryVersion.count();
    const outbox = await w.t.database.prisma.outboxEvent.count();

    const res = await w.api('POST', `/api/releases/${r.id}/publish`);
    expect(res.status).toBe(422);
    expect(res.body.message).toEqual(expect.any(String));
    expect(Object.keys(res.body.errors)).toEqual(['items.2.uuid']);

    expect((await w.api('GET', `/api/posts/${a}`)).status).toBe(404);
    expect((await w.api('GET', `/api/authors/${live}`)).status).toBe(200);
    expect(await w.t.database.prisma.entryVersion.count()).toBe(before);
    expect(await w.t.database.prisma.outboxEvent.count()).toBe(outbox);
    expect((await w.api('GET', `/api/releases/${r.id}`)).body.data).toMatchObject({ status: 'open', errors: null });
  });

  it('fails an item whose draft lacks a field made required after it was saved', async () => {
    const pageRows = await w.t.database.prisma.field.findFirstOrThrow({ where: { collectionId: w.c.pages.id, name: 'heading' } });
    const blank = await entry(w, 'pages', {});
    const r = await release(w, [{ collection: 'pages', uuid: blank, action: 'publish' }]);
    await w.t.database.prisma.field.update({ where: { id: pageRows.id }, data: { validations: { required: { status: true } } } });
    await w.t.database.prisma.project.update({ where: { id: w.p.id }, data: { schemaRevision: { increment: 1 } } });
    try {
      const res = await w.api('POST', `/api/releases/${r.id}/publish`);
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['items.0.data.heading']);
    } finally {
      await w.t.database.prisma.field.update({ where: { id: pageRows.id }, data: { validations: {} } });
      await w.t.database.prisma.project.update({ where: { id: w.p.id }, data: { schemaRevision: { increment: 1 } } });
    }
  });
});
