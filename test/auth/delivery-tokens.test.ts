import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { world, posts, authors, field, type World } from '../helpers/world.ts';

/**
 * Delivery tokens: issued with `delivery: true` (read only), they read the published view alone, and
 * their published answers carry what a CDN needs (shared lifetime, strong ETag, Vary, purge tags);
 * every other token keeps `no-cache`.
 */
describe('delivery tokens', () => {
  let w: World;
  let post: string;
  let delivery: Record<string, string>;

  beforeAll(async () => {
    // The authentication cache on, as in production: repeated reads over a socket take the early lane.
    w = await world({ app: { env: { AUTH_CACHE_MS: '1000' } }, project: { name: 'Delivery' }, collections: [authors(), posts(field.relation('author', 'authors', 1, { includeDraft: true }))], tokens: { reader: ['read'] } });
    post = (await w.api('POST', '/api/posts', { state: 'published', data: { title: 'Live' } })).body.uuid;
    await w.api('PATCH', `/api/posts/${post}`, { data: { title: 'Draft title' } });
    const res = await w.api('POST', '/api/project/tokens', { name: 'site', abilities: ['read'], delivery: true });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.delivery).toBe(true);
    delivery = { 'project-id': w.p.uuid, authorization: `Bearer ${res.body.data.token}` };
  }, 60_000);
  afterAll(() => w.close());

  it('is issued read-only: any other ability is refused with a 422 naming it, and listings show the flag', async () => {
    const refused = await w.api('POST', '/api/project/tokens', { name: 'x', abilities: ['read', 'update'], delivery: true });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.abilities[0]).toMatch(/delivery token reads only/);
    const list = (await w.api('GET', '/api/project/tokens')).body.data as Array<{ name: string; delivery: boolean }>;
    expect(list.find((t) => t.name === 'site')?.delivery).toBe(true);
    expect(list.filter((t) => t.name !== 'site').every((t) => t.delivery === false)).toBe(true);
  });

  it('reads published content only: drafts, release previews and version history are 403, writes too', async () => {
    const as = (method: string, url: string, body?: unknown) => w.api(method, url, body, delivery);
    expect((await as('GET', `/api/posts/${post}`)).body.fields.title).toBe('Live');
    expect((await as('GET', `/api/posts/${post}?state=draft`)).status).toBe(403);
    expect((await as('GET', '/api/posts?state=draft')).status).toBe(403);
    expect((await as('GET', `/api/posts?release=00000000-0000-4000-8000-000000000000`)).status).toBe(403);
    expect((await as('GET', `/api/posts/${post}/versions`)).status).toBe(403);
    expect((await as('PATCH', `/api/posts/${post}`, { data: { title: 'no' } })).status).toBe(403);
    const draft = await w.t.graphql(`{ posts(state: draft) { data { title } } }`, undefined, delivery);
    expect(draft.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    // A draft-only entry is simply not there for it: no hint that a draft exists (other tokens get one).
    const unpublished = (await w.api('POST', '/api/posts', { data: { title: 'Not yet' } })).body.uuid;
    const hidden = await as('GET', `/api/posts/${unpublished}`);
    expect([hidden.status, hidden.body.message]).toEqual([404, 'Entry not found.']);
    expect((await w.api('GET', `/api/posts/${unpublished}`)).body.message).toMatch(/no published version yet/);
  });

  it('answers published reads with CDN headers and tags; other tokens keep no-cache', async () => {
    for (let i = 0; i < 2; i++) {
      // The second is the server's own cached copy: the same headers and tags.
      const r = await w.api('GET', `/api/posts/${post}`, undefined, delivery);
      expect(r.headers['cache-control']).toBe('public, max-age=0, s-maxage=3600, stale-while-revalidate=30');
      expect(r.headers.etag).toMatch(/^"[^"]+"$/);
      expect(r.headers.vary).toContain('Authorization, project-id, Accept-Encoding');
      expect(String(r.headers['surrogate-key']).split(' ')).toEqual([`p:${w.p.uuid}`, `c:${w.c.posts.uuid}`, `e:${post}`]);
      const revalidated = await w.api('GET', `/api/posts/${post}`, undefined, { ...delivery, 'if-none-match': String(r.headers.etag) });
      expect(revalidated.status).toBe(304);
    }
    const list = await w.api('GET', '/api/posts', undefined, delivery);
    expect(String(list.headers['surrogate-key']).split(' ')).toContain(`l:${w.c.posts.uuid}`);
    const other = await w.api('GET', `/api/posts/${post}`, undefined, w.tokens.reader);
    expect(other.headers['cache-control']).toBe('no-cache');
    expect(other.headers['surrogate-key']).toBeUndefined();

    const q = encodeURIComponent(`{ posts { data { title } } }`);
    for (const headers of [delivery, { ...delivery }]) {
      const g = await w.t.request({ method: 'GET', url: `/graphql?query=${q}`, headers: { ...headers, accept: 'application/json' } });
      expect(g.status).toBe(200);
      expect(g.headers['cache-control']).toMatch(/^public, max-age=0, s-maxage=3600/);
      expect(g.headers.vary).toContain('Accept');
      expect(String(g.headers['surrogate-key']).split(' ')).toEqual([`p:${w.p.uuid}`, `c:${w.c.posts.uuid}`, `l:${w.c.posts.uuid}`, `e:${post}`]);
    }
    const g = await w.t.request({ method: 'GET', url: `/graphql?query=${q}`, headers: { ...w.tokens.reader, accept: 'application/json' } });
    expect(g.headers['cache-control']).toBe('no-cache');
  });

  it('tags a read with every entry it hydrates or links, published or not, and shows a delivery token no linked draft', async () => {
    const ann = (await w.api('POST', '/api/authors', { state: 'published', data: { name: 'Ann' } })).body.uuid;
    const bob = (await w.api('POST', '/api/authors', { data: { name: 'Draft Bob' } })).body.uuid;
    const withAnn = (await w.api('POST', '/api/posts', { state: 'published', data: { title: 'By Ann', author: ann } })).body.uuid;
    const withBob = (await w.api('POST', '/api/posts', { state: 'published', data: { title: 'By Bob', author: bob } })).body.uuid;
    const a = await w.api('GET', `/api/posts/${withAnn}`, undefined, delivery);
    expect(a.body.fields.author.fields).toEqual({ name: 'Ann' });
    expect(String(a.headers['surrogate-key']).split(' ')).toEqual(expect.arrayContaining([`c:${w.c.authors.uuid}`, `e:${withAnn}`, `e:${ann}`]));
    // includeDraft shows other tokens the draft author; a delivery token sees none, yet the answer names Bob: publishing him changes it.
    expect((await w.api('GET', `/api/posts/${withBob}`, undefined, w.tokens.reader)).body.fields.author.fields).toEqual({ name: 'Draft Bob' });
    const b = await w.api('GET', `/api/posts/${withBob}`, undefined, delivery);
    expect(b.body.fields.author ?? null).toBeNull();
    expect(String(b.headers['surrogate-key']).split(' ')).toContain(`e:${bob}`);
  });

  it('answers the same headers and tags from every lane over a socket (router, early REST lane, early GraphQL lane)', async () => {
    await w.t.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(w.t.app.server.address() as { port: number }).port}`;
    const q = encodeURIComponent(`{ posts { data { title } } }`);
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${base}/api/posts/${post}`, { headers: delivery });
      expect(r.headers.get('cache-control')).toMatch(/^public, max-age=0, s-maxage=3600/);
      expect(r.headers.get('surrogate-key')?.split(' ')).toEqual([`p:${w.p.uuid}`, `c:${w.c.posts.uuid}`, `e:${post}`]);
      expect(r.headers.get('etag')).toMatch(/^"/);
      const g = await fetch(`${base}/graphql?query=${q}`, { headers: { ...delivery, accept: 'application/json' } });
      expect(g.headers.get('cache-control')).toMatch(/^public, max-age=0, s-maxage=3600/);
      expect(g.headers.get('surrogate-key')?.split(' ')).toContain(`e:${post}`);
      const other = await fetch(`${base}/api/posts/${post}`, { headers: w.tokens.reader });
      expect(other.headers.get('cache-control')).toBe('no-cache');
      expect(other.headers.get('surrogate-key')).toBeNull();
    }
  });
});
