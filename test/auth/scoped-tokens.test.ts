import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { world, posts, authors, collection, field, type World } from '../helpers/world.ts';

/**
 * Tokens limited to collections and fields, issued over the API: every route family answers as if
 * what lies outside the scope did not exist (REST 404, absent from the typed GraphQL schema and the
 * OpenAPI document), field scopes hide values everywhere and refuse writes naming them, and a cached
 * answer is never served across scopes.
 */
describe('scoped API tokens', () => {
  let w: World;
  let postsOnly: Record<string, string>;
  let fieldScoped: Record<string, string>;
  let post: string;
  let secret: string;

  const as = (headers: Record<string, string>) => (method: string, url: string, body?: unknown) => w.api(method, url, body, headers);
  async function issue(body: Record<string, unknown>) {
    const res = await w.api('POST', '/api/project/tokens', body);
    expect(res.status, res.text).toBe(201);
    return { res, headers: { 'project-id': w.p.uuid, authorization: `Bearer ${res.body.data.token}` } };
  }
  const gql = (headers: Record<string, string>, query: string, variables?: Record<string, unknown>) => w.t.graphql(query, variables, headers);

  beforeAll(async () => {
    w = await world({
      project: { name: 'Scopes' },
      collections: [authors(), posts(field.text('body'), field.text('internal_notes'), field.relation('author', 'authors')), collection('secrets', [field.text('code')])],
    });
    const author = (await w.api('POST', '/api/authors', { state: 'published', data: { name: 'Ada' } })).body.uuid;
    post = (await w.api('POST', '/api/posts', { state: 'published', data: { title: 'Hello', body: 'B', internal_notes: 'do not leak', author } })).body.uuid;
    secret = (await w.api('POST', '/api/secrets', { state: 'published', data: { code: 'xyz' } })).body.uuid;
    postsOnly = (await issue({ name: 'posts only', abilities: ['*'], collections: ['posts'] })).headers;
    fieldScoped = (await issue({ name: 'no notes', abilities: ['*'], collections: ['posts', 'authors'], fields: { posts: ['title', 'body', 'author'] } })).headers;
  }, 60_000);
  afterAll(() => w.close());

  it('a field-scoped token searches only the fields it may read, on REST and GraphQL', async () => {
    // "leak" is only in internal_notes, outside its fields: no match, rather than a refusal.
    const leak = await w.api('GET', '/api/posts?search=leak', undefined, fieldScoped);
    expect(leak.status, leak.text).toBe(200);
    expect(leak.body).toEqual([]);
    const g = await gql(fieldScoped, `{ posts(search: "leak") { data { uuid } } }`);
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.posts.data).toEqual([]);
    // What it may read is searched as for anyone, with a score.
    const hello = await w.api('GET', '/api/posts?search=hello', undefined, fieldScoped);
    expect(hello.status, hello.text).toBe(200);
    expect((hello.body as Array<{ uuid: string; meta: { score: number } }>).map((e) => e.uuid)).toEqual([post]);
    expect(hello.body[0].meta.score).toBeGreaterThan(0);
    const gh = await gql(fieldScoped, `{ posts(search: "hello") { data { uuid } } }`);
    expect(gh.body.data.posts.data.map((e: { uuid: string }) => e.uuid)).toEqual([post]);
    // The unscoped token searches every searchable field.
    const all = await w.api('GET', '/api/posts?search=leak');
    expect(all.status, all.text).toBe(200);
    expect((all.body as Array<{ uuid: string }>).map((e) => e.uuid)).toEqual([post]);
  });

  it('a group out of a token\'s field scope keeps its text children out of its search too', async () => {
    expect((await w.api('POST', '/api/collections', { name: 'Pages', slug: 'pages', fields: [
      { type: 'text', label: 'Title', name: 'title' },
      { type: 'group', label: 'Private', name: 'private', options: { repeatable: false }, children: [{ type: 'text', label: 'Note', name: 'note' }] },
    ] })).status).toBe(201);
    const page = (await w.api('POST', '/api/pages', { state: 'published', data: { title: 'Open', private: { note: 'hush' } } })).body.uuid;
    const { headers } = await issue({ name: 'page titles', abilities: ['read'], collections: ['pages'], fields: { pages: ['title'] } });
    const hidden = await w.api('GET', '/api/pages?search=hush', undefined, headers);
    expect(hidden.status, hidden.text).toBe(200);
    expect(hidden.body).toEqual([]);
    const open = await w.api('GET', '/api/pages?search=open', undefined, headers);
    expect((open.body as Array<{ uuid: string }>).map((e) => e.uuid)).toEqual([page]);
    // The draft view is searched the same way.
    const draft = await w.api('GET', '/api/pages?search=hush&state=draft', undefined, headers);
    expect(draft.body).toEqual([]);
  });

  it('issues a token with its scope and shows the secret only once', async () => {
    const { res } = await issue({ name: 'report', abilities: ['read'], collections: ['posts'], fields: { posts: ['title'] }, expires_at: '2999-01-01T00:00:00Z' });
    expect(res.body.data).toMatchObject({ name: 'report', abilities: ['read'], collections: ['posts'], fields: { posts: ['title'] }, expires_at: '2999-01-01T00:00:00.000Z' });
    expect(res.body.data.token).toMatch(/^cms_/);
    const list = await w.api('GET', '/api/project/tokens');
    expect(list.status).toBe(200);
    const listed = list.body.data.find((t: { id: number }) => t.id === res.body.data.id);
    expect(listed).toMatchObject({ name: 'report', collections: ['posts'], revoked_at: null });
    expect(JSON.stringify(list.body)).not.toContain(res.body.data.token);
    // The unscoped `*` token of the project has no limits.
    expect(list.body.data[0]).toMatchObject({ collections: null, fields: null, expires_at: null });
  });

  it('refuses a scope naming what does not exist, or an expiry in the past (422)', async () => {
    const res = await w.api('POST', '/api/project/tokens', { name: 'bad', abilities: ['read'], collections: ['posts', 'nope'], fields: { posts: ['ghost'], secrets: ['code'] }, expires_at: '2000-01-01T00:00:00Z' });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['collections.1', 'expires_at', 'fields.posts.0', 'fields.secrets']);
  });

  it('a scoped token may not manage tokens (403)', async () => {
    const admin = (await issue({ name: 'scoped admin', abilities: ['admin', 'read'], collections: ['posts'] })).headers;
    expect((await as(admin)('POST', '/api/project/tokens', { name: 'wider', abilities: ['*'] })).status).toBe(403);
    expect((await as(admin)('GET', '/api/project/tokens')).status).toBe(403);
  });

  it('answers 404 for a collection outside the scope on every REST route family', async () => {
    const api = as(postsOnly);
    const calls: Array<[string, string, unknown?]> = [
      ['GET', '/api/secrets'],
      ['GET', `/api/secrets/${secret}`],
      ['POST', '/api/secrets', { data: { code: 'a' } }],
      ['PATCH', `/api/secrets/${secret}`, { data: { code: 'b' } }],
      ['PUT', `/api/secrets/${secret}`, { data: { code: 'b' } }],
      ['DELETE', `/api/secrets/${secret}`],
      ['POST', `/api/secrets/${secret}/publish`],
      ['GET', `/api/secrets/${secret}/versions`],
      ['GET', `/api/secrets/${secret}/versions/1`],
      ['POST', '/api/bulk/secrets/entries', { items: [{ data: { code: 'c' } }] }],
      ['DELETE', '/api/bulk/secrets/entries', { uuids: [secret] }],
      ['GET', '/api/secrets/trash'],
      ['DELETE', '/api/secrets/trash'],
      ['POST', `/api/secrets/${secret}/restore`],
      ['GET', '/api/collections/secrets'],
    ];
    for (const [method, url, body] of calls) expect((await api(method, url, body)).status, `${method} ${url}`).toBe(404);
    // Nothing was written: the entry is as it was.
    expect((await w.api('GET', `/api/secrets/${secret}`)).body.fields).toEqual({ code: 'xyz' });
    // The model it sees: posts only, without the relation into a collection it cannot reach.
    const model = await api('GET', '/api/collections');
    expect(model.body.map((c: { slug: string }) => c.slug)).toEqual(['posts']);
    expect(model.body[0].fields.map((f: { name: string }) => f.name)).toEqual(['title', 'body', 'internal_notes']);
    const read = await api('GET', `/api/posts/${post}`);
    expect(read.status).toBe(200);
    expect(Object.keys(read.body.fields).sort()).toEqual(['body', 'internal_notes', 'title']);
  });

  it('leaves what is outside the scope out of the typed GraphQL schema, its introspection and its mutations', async () => {
    const intro = await gql(postsOnly, '{ __schema { queryType { fields { name } } mutationType { fields { name } } subscriptionType { fields { name } } } }');
    const names = (k: string) => intro.body.data.__schema[k].fields.map((f: { name: string }) => f.name) as string[];
    expect(names('queryType')).toContain('posts');
    for (const k of ['queryType', 'mutationType', 'subscriptionType']) {
      expect(names(k).filter((n) => /secret|author/i.test(n)), k).toEqual([]);
    }
    const query = await gql(postsOnly, '{ secrets { data { code } } }');
    expect(query.body.errors?.[0].message).toMatch(/secrets/);
    expect(query.body.data).toBeUndefined();
    const mutation = await gql(postsOnly, 'mutation { createSecret(data: { code: "x" }) { uuid } }');
    expect(mutation.body.errors?.length).toBeGreaterThan(0);
    // The core schema's generic fields take a slug: the same 404 as REST.
    const core = await gql(postsOnly, `{ entry(collection: "secrets", uuid: "${secret}") { uuid } }`);
    expect(JSON.stringify(core.body)).not.toContain('xyz');
  });

  it('gives a scoped token an OpenAPI document of what it can reach', async () => {
    const doc = (await w.t.request({ method: 'GET', url: '/api/openapi.json', headers: fieldScoped })).body;
    const text = JSON.stringify(doc);
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/api/posts'))).toBe(true);
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/api/secrets'))).toBe(false);
    expect(text).not.toContain('internal_notes');
    const full = JSON.stringify((await w.t.request({ method: 'GET', url: '/api/openapi.json', headers: w.p.headers })).body);
    expect(full).toContain('internal_notes');
    expect(full).toContain('/api/secrets');
  });

  describe('field scope', () => {
    it('hides other fields from reads, lists, versions and diffs', async () => {
      const api = as(fieldScoped);
      expect(Object.keys((await api('GET', `/api/posts/${post}`)).body.fields).sort()).toEqual(['author', 'body', 'title']);
      const list = await api('GET', '/api/posts?state=draft');
      expect(JSON.stringify(list.body)).not.toContain('do not leak');
      await w.api('PATCH', `/api/posts/${post}`, { data: { internal_notes: 'changed secretly', title: 'Hello 2' } });
      await w.api('POST', `/api/posts/${post}/publish`);
      const v = await api('GET', `/api/posts/${post}/versions/2`);
      expect(v.status).toBe(200);
      expect(JSON.stringify(v.body)).not.toContain('internal_notes');
      const diff = await api('GET', `/api/posts/${post}/versions/1/diff?to=2`);
      expect(diff.status).toBe(200);
      expect(JSON.stringify(diff.body)).toContain('title');
      expect(JSON.stringify(diff.body)).not.toContain('internal_notes');
      const g = await gql(fieldScoped, '{ __type(name: "Post") { fields { name } } }');
      expect(g.body.data.__type.fields.map((f: { name: string }) => f.name).filter((n: string) => /internal/i.test(n))).toEqual([]);
    });

    it('knows no other field in where and sort (422)', async () => {
      const api = as(fieldScoped);
      expect((await api('GET', '/api/posts?where[internal_notes][eq]=x')).status).toBe(422);
      expect((await api('GET', '/api/posts?sort=internal_notes:asc')).status).toBe(422);
      expect((await api('GET', '/api/posts?where[title][eq]=Hello')).status).toBe(200);
      expect((await w.api('GET', '/api/posts?where[internal_notes][eq]=x')).status).toBe(200);
    });

    it('refuses a write naming another field (403), and a replace keeps its value', async () => {
      const api = as(fieldScoped);
      const refused = await api('PATCH', `/api/posts/${post}`, { data: { title: 'T', internal_notes: 'overwrite' } });
      expect(refused.status).toBe(403);
      expect((await api('POST', '/api/posts', { data: { title: 'N', internal_notes: 'x' } })).status).toBe(403);
      expect((await api('POST', '/api/bulk/posts/entries', { items: [{ data: { title: 'N' } }, { data: { internal_notes: 'x' } }] })).status).toBe(403);
      const replaced = await api('PUT', `/api/posts/${post}`, { data: { title: 'Replaced', body: 'B2' } });
      expect(replaced.status, replaced.text).toBe(200);
      expect(replaced.body.fields).not.toHaveProperty('internal_notes');
      const stored = await w.api('GET', `/api/posts/${post}?state=draft`);
      expect(stored.body.fields).toMatchObject({ title: 'Replaced', internal_notes: 'changed secretly' });
      const g = await gql(fieldScoped, `mutation { updatePost(uuid: "${post}", data: { internal_notes: "x" }) { uuid } }`);
      expect(g.body.errors?.length).toBeGreaterThan(0);
      expect((await w.api('GET', `/api/posts/${post}?state=draft`)).body.fields.internal_notes).toBe('changed secretly');
    });
  });

  it('never serves a cached answer built for one scope to another (REST and GraphQL)', async () => {
    // The unscoped token warms both caches.
    await w.api('GET', '/api/posts');
    const warm = await w.api('GET', '/api/posts');
    expect(warm.headers['x-cache']).toBe('HIT');
    expect(JSON.stringify(warm.body)).toContain('changed secretly');
    const scoped = await as(fieldScoped)('GET', '/api/posts');
    expect(scoped.headers['x-cache']).not.toBe('HIT');
    expect(JSON.stringify(scoped.body)).not.toContain('changed secretly');
    // Its own repeat is cached, still without the field.
    const again = await as(fieldScoped)('GET', '/api/posts');
    expect(again.headers['x-cache']).toBe('HIT');
    expect(JSON.stringify(again.body)).not.toContain('changed secretly');

    const q = '{ secrets { data { code } } }';
    expect((await gql(w.p.headers, q)).body.data.secrets.data[0].code).toBe('xyz');
    expect((await gql(w.p.headers, q)).body.data.secrets.data[0].code).toBe('xyz');
    const other = await gql(postsOnly, q);
    expect(other.body.data).toBeUndefined();
    expect(JSON.stringify(other.body)).not.toContain('xyz');
    const get = await w.t.request({ method: 'GET', url: `/graphql?query=${encodeURIComponent(q)}`, headers: postsOnly });
    expect(get.text).not.toContain('xyz');
  });

  it('refuses an expired token (401), also one this replica remembers', async () => {
    const { headers } = await issue({ name: 'short', abilities: ['read'], expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await as(headers)('GET', '/api/posts')).status).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 2 * 3_600_000);
      const res = await as(headers)('GET', '/api/posts');
      expect(res.status).toBe(401);
      expect(res.body.message).toMatch(/expired/);
      expect((await gql(headers, '{ posts { data { title } } }')).status).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });

  it('revokes over the API: the next request is refused (401)', async () => {
    const { res, headers } = await issue({ name: 'gone', abilities: ['read'], collections: ['posts'] });
    expect((await as(headers)('GET', '/api/posts')).status).toBe(200);
    const revoked = await w.api('DELETE', `/api/project/tokens/${res.body.data.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.revoked_at).not.toBeNull();
    expect((await as(headers)('GET', '/api/posts')).status).toBe(401);
    expect((await w.api('DELETE', '/api/project/tokens/999999')).status).toBe(404);
  });
});
