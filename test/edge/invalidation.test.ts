import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { world, posts, authors, collection, field } from '../helpers/world.ts';
import { PNG, upload } from '../assets/helpers.ts';

/**
 * Invalidation as fine as the data allows (issue 18, migration 20261126000000): a published read
 * moves only when an entry it shows or hydrates is published, unpublished, reverted or deleted, or
 * when its collection's fields change; a draft read when the drafts it shows change. Each rule is
 * checked through HTTP (the `X-Cache` header) and GraphQL (the GraphQL cache's hit counter), caches
 * on, on PostgreSQL and embedded PGlite (the same triggers). AUTH_CACHE_MS=0 here, so every request
 * reads the generations the commit left: the replica case, with authentication held in memory
 * behind the change feed, is test/edge/invalidation-replicas.test.ts.
 */
for (const embedded of [false, true]) describe(`fine invalidation of the read caches (${embedded ? 'PGlite' : 'PostgreSQL'})`, () => {
  let t: TestApp;
  let p: TestProject;
  let ann: string;
  let bea: string;
  let post: string;
  let other: string;
  let tag: string;

  beforeAll(async () => {
    ({ t, p } = await world({
      app: { embedded },
      project: { name: 'Invalidation' },
      via: 'api',
      collections: [
        authors(),
        posts(field.relation('author', 'authors')),
        // Published reads of picks show a never-published author's draft in its place (includeDraft).
        collection('picks', [field.relation('author', 'authors', 1, { includeDraft: true })]),
        collection('tags', [field.text('label')]),
      ],
    }));
    ann = (await api('POST', '/api/authors', { state: 'published', data: { name: 'Ann' } })).body.uuid;
    bea = (await api('POST', '/api/authors', { data: { name: 'Bea (draft)' } })).body.uuid;
    post = (await api('POST', '/api/posts', { state: 'published', data: { title: 'One', author: ann } })).body.uuid;
    other = (await api('POST', '/api/posts', { state: 'published', data: { title: 'Other', author: ann } })).body.uuid;
    await api('POST', '/api/picks', { state: 'published', data: { author: bea } });
    tag = (await api('POST', '/api/tags', { state: 'published', data: { label: 'news' } })).body.uuid;
  }, 120_000);
  afterAll(() => t.close());

  function api(method: string, url: string, body?: unknown) {
    return t.request({ method, url, headers: p.headers, body });
  }
  async function ok(method: string, url: string, body?: unknown) {
    const res = await api(method, url, body);
    expect(res.status, `${method} ${url}: ${res.text}`).toBeLessThan(300);
    return res;
  }
  /** A REST read and whether the read cache answered it. */
  async function rest(url: string) {
    const res = await api('GET', url);
    return { status: res.status, body: res.body, text: res.text, cache: res.headers['x-cache'] };
  }
  /** A GraphQL read (no errors allowed) and whether the GraphQL read cache answered it. */
  async function gql(query: string, variables?: Record<string, unknown>) {
    const cache = t.services.graphqlReadCache!;
    const hits = cache.hits;
    const res = await t.graphql(query, variables, p.headers);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return { data: res.body.data, hit: cache.hits > hits };
  }

  const POSTS = '{ posts(perPage: 25) { data { uuid title updatedAt isDraftDirty author { name } } } }';
  const DRAFT_POSTS = '{ posts(perPage: 25, state: draft) { data { uuid title } } }';
  const CORE = 'query($c: String!) { entries(collection: $c) { data { uuid fields } } }';
  const postUrl = () => `/api/posts/${post}?timestamps=1`;

  /** Reads every cached view of posts once, so the next reads can be hits. */
  async function warm() {
    await rest(postUrl());
    await rest('/api/posts?paginate=25');
    await gql(POSTS);
    await gql(CORE, { c: 'posts' });
    await gql(DRAFT_POSTS);
  }
  async function expectPublishedPostsCached() {
    expect((await rest(postUrl())).cache).toBe('HIT');
    expect((await rest('/api/posts?paginate=25')).cache).toBe('HIT');
    expect((await gql(POSTS)).hit).toBe(true);
    expect((await gql(CORE, { c: 'posts' })).hit).toBe(true);
  }
  async function expectPublishedPostsMoved() {
    expect((await rest(postUrl())).cache).not.toBe('HIT');
    expect((await rest('/api/posts?paginate=25')).cache).toBe('MISS');
    expect((await gql(POSTS)).hit).toBe(false);
    expect((await gql(CORE, { c: 'posts' })).hit).toBe(false);
  }

  it('a draft save keeps every published read cached, and the published read shows nothing of it', async () => {
    await warm();
    const before = await rest(postUrl());
    expect(before.cache).toBe('HIT');
    await ok('PATCH', `/api/posts/${post}`, { data: { title: 'One, edited' } });
    await expectPublishedPostsCached();
    // What the cache holds is what a fresh read computes: the published version, not the draft.
    const fresh = await rest(`${postUrl()}&uncached=1`);
    expect(fresh.cache).toBe('MISS');
    expect(fresh.body).toEqual(before.body);
    expect(fresh.body).toMatchObject({ is_draft_dirty: false, fields: { title: 'One' } });
    const freshGql = await gql(`{ posts(perPage: 25, where: { title: { eq: "One" } }) { data { uuid updatedAt isDraftDirty } } }`);
    expect(freshGql.data.posts.data).toEqual([{ uuid: post, updatedAt: before.body.updated_at, isDraftDirty: false }]);
    // Sorting and filtering by updated_at see the published version's time too.
    const sorted = await rest('/api/posts?sort=updated_at:desc&timestamps=1');
    expect(sorted.body.map((e: { uuid: string }) => e.uuid)).toEqual([other, post]);
    const since = encodeURIComponent(before.body.updated_at);
    expect((await rest(`/api/posts?where[updated_at][gt]=${since}`)).body).toEqual([expect.objectContaining({ uuid: other })]);
    // The draft read does show it.
    expect((await rest(`/api/posts/${post}?state=draft`)).body).toMatchObject({ is_draft_dirty: true, fields: { title: 'One, edited' } });
  });

  it('a draft read moves with a draft save of what it shows', async () => {
    const first = await gql(DRAFT_POSTS);
    expect((await gql(DRAFT_POSTS)).hit).toBe(true);
    await ok('PATCH', `/api/posts/${other}`, { data: { title: 'Other, edited' } });
    const after = await gql(DRAFT_POSTS);
    expect(after.hit).toBe(false);
    expect(after.data).not.toEqual(first.data);
    expect(after.data.posts.data).toContainEqual({ uuid: other, title: 'Other, edited' });
  });

  it('a publish drops the published reads and shows the new version', async () => {
    await warm();
    await expectPublishedPostsCached();
    await ok('POST', `/api/posts/${post}/publish`);
    await expectPublishedPostsMoved();
    expect((await rest(postUrl())).body.fields.title).toBe('One, edited');
  });

  it('a revert drops them', async () => {
    await warm();
    await expectPublishedPostsCached();
    await ok('POST', `/api/posts/${post}/versions/1/revert`);
    await expectPublishedPostsMoved();
    expect((await rest(postUrl())).body.fields.title).toBe('One');
  });

  it('an unpublish drops them, and so does a publish after it', async () => {
    await warm();
    await ok('POST', `/api/posts/${other}/unpublish`);
    expect((await rest('/api/posts?paginate=25')).cache).toBe('MISS');
    expect((await gql(POSTS)).data.posts.data.map((e: { uuid: string }) => e.uuid)).toEqual([post]);
    await ok('POST', `/api/posts/${other}/publish`);
    expect((await gql(POSTS)).data.posts.data.map((e: { uuid: string }) => e.uuid)).toEqual([post, other]);
  });

  it('a delete drops them', async () => {
    const doomed = (await ok('POST', '/api/posts', { state: 'published', data: { title: 'Doomed' } })).body.uuid;
    await warm();
    await expectPublishedPostsCached();
    await ok('DELETE', `/api/posts/${doomed}`);
    await expectPublishedPostsMoved();
    expect((await gql(POSTS)).data.posts.data.map((e: { uuid: string }) => e.uuid)).not.toContain(doomed);
    expect((await rest(`/api/posts/${doomed}`)).status).toBe(404);
  });

  it("a change of the collection's fields drops them", async () => {
    await warm();
    await expectPublishedPostsCached();
    await ok('POST', '/api/collections/posts/fields', { type: 'text', label: 'Subtitle', name: 'subtitle' });
    expect((await rest(postUrl())).cache).not.toBe('HIT');
    expect((await rest(postUrl())).body.fields).toHaveProperty('subtitle', null);
    expect((await rest('/api/posts?paginate=25')).cache).toBe('MISS');
  });

  it('a publish of a hydrated entry drops the reads that hydrate it; its draft save does not', async () => {
    await warm();
    await ok('PATCH', `/api/authors/${ann}`, { data: { name: 'Ann, edited' } });
    await expectPublishedPostsCached();
    await ok('POST', `/api/authors/${ann}/publish`);
    const get = await rest(postUrl());
    expect(get.cache).not.toBe('HIT');
    expect(get.body.fields.author.fields.name).toBe('Ann, edited');
    const list = await gql(POSTS);
    expect(list.hit).toBe(false);
    expect(list.data.posts.data[0].author.name).toBe('Ann, edited');
  });

  it('a write to one collection keeps the cached reads of the others', async () => {
    await warm();
    await rest(`/api/tags/${tag}`);
    await rest(`/api/authors/${ann}`);
    await gql('{ tags { data { label } } }');
    // Tags: draft save, publish, create, delete. Posts reads stay.
    await ok('PATCH', `/api/tags/${tag}`, { data: { label: 'updates' } });
    await ok('POST', `/api/tags/${tag}/publish`);
    const extra = (await ok('POST', '/api/tags', { state: 'published', data: { label: 'extra' } })).body.uuid;
    await ok('DELETE', `/api/tags/${extra}?force=true`);
    await expectPublishedPostsCached();
    const tags = await gql('{ tags { data { label } } }');
    expect(tags.hit).toBe(false);
    expect(tags.data.tags.data).toEqual([{ label: 'updates' }]);
    expect((await rest(`/api/tags/${tag}`)).cache).toBe('MISS');
    // Posts point at authors, not the other way: publishing a post leaves authors' reads cached.
    await ok('PATCH', `/api/posts/${other}`, { data: { title: 'Other, again' } });
    await ok('POST', `/api/posts/${other}/publish`);
    expect((await rest(`/api/authors/${ann}`)).cache).toBe('HIT');
    expect((await rest(`/api/tags/${tag}`)).cache).toBe('HIT');
  });

  it("a draft save of a never-published entry drops the published reads that show it through includeDraft", async () => {
    const first = await rest('/api/picks');
    expect(first.body[0].fields.author.fields.name).toBe('Bea (draft)');
    expect((await rest('/api/picks')).cache).toBe('HIT');
    await ok('PATCH', `/api/authors/${bea}`, { data: { name: 'Bea (second draft)' } });
    const after = await rest('/api/picks');
    expect(after.cache).toBe('MISS');
    expect(after.body[0].fields.author.fields.name).toBe('Bea (second draft)');
    // Once Bea is published, her drafts are out of every published read again.
    await ok('POST', `/api/authors/${bea}/publish`);
    await rest('/api/picks');
    await ok('PATCH', `/api/authors/${bea}`, { data: { name: 'Bea (third draft)' } });
    const published = await rest('/api/picks');
    expect(published.cache).toBe('HIT');
    expect(published.body[0].fields.author.fields.name).toBe('Bea (second draft)');
  });

  it('an asset change drops the reads of collections with media fields (and of those hydrating them), not the others', async () => {
    const asset = (await upload(t, p.headers, { filename: 'cover.png', contentType: 'image/png', content: PNG })).body;
    await ok('POST', '/api/collections', { name: 'Galleries', slug: 'galleries', fields: [{ type: 'media', label: 'Cover', name: 'cover', options: { media: { type: 1 } } }] });
    const gallery = (await ok('POST', '/api/galleries', { state: 'published', data: { cover: asset.uuid } })).body.uuid;
    await rest(`/api/galleries/${gallery}`);
    expect((await rest(`/api/galleries/${gallery}`)).cache).toBe('HIT');
    await warm();
    await ok('PATCH', '/api/files/bulk/metadata', { items: [{ uuid: asset.uuid, alt_text: 'A cover' }] });
    const after = await rest(`/api/galleries/${gallery}`);
    expect(after.cache).toBe('MISS');
    expect(after.body.fields.cover.metadata).toMatchObject({ alt_text: 'A cover' });
    // Posts show no media and hydrate no collection that does.
    await expectPublishedPostsCached();
  });

  it('a bulk write bumps its collection once, and a draft-only bulk write no published generation', async () => {
    const generations = async () =>
      (await t.database.query<{ published: string; draft: string }>(
        `SELECT g.published::text, g.draft::text FROM cms_collection_generations($1) g WHERE g.slug = 'tags'`,
        [p.id],
      ))[0];
    const before = await generations();
    const items = Array.from({ length: 20 }, (_, i) => ({ data: { label: `bulk ${i}` }, state: 'published' }));
    await ok('POST', '/api/bulk/tags/entries', { items });
    const published = await generations();
    expect([BigInt(published.published) - BigInt(before.published), BigInt(published.draft) - BigInt(before.draft)]).toEqual([1n, 1n]);
    await ok('POST', '/api/bulk/tags/entries', { items: items.map((i) => ({ data: i.data })) });
    const drafts = await generations();
    expect([BigInt(drafts.published) - BigInt(published.published), BigInt(drafts.draft) - BigInt(published.draft)]).toEqual([0n, 1n]);
  });
});
