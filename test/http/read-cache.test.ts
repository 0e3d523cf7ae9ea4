import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { world, posts, authors, field } from '../helpers/world.ts';
import { countQueries } from '../helpers/sql-count.ts';

/**
 * The published-read cache answers from memory while the project's content generation stands still,
 * and never after a committed change: whatever made the change (this process's API, another process,
 * plain SQL), since the generation is bumped by a trigger at commit.
 */
for (const embedded of [false, true]) describe(`published read cache (${embedded ? 'PGlite' : 'PostgreSQL'})`, () => {
  let t: TestApp;
  let p: TestProject;
  let post: string;
  let author: string;
  beforeAll(async () => {
    ({ t, p } = await world({ app: { embedded }, project: { name: 'Cache' }, via: 'api', collections: [authors(), posts(field.relation('author', 'authors'))] }));
    author = (await api('POST', '/api/authors', { state: 'published', data: { name: 'Ann' } })).body.uuid;
    post = (await api('POST', '/api/posts', { state: 'published', data: { title: 'One', author } })).body.uuid;
  }, 120_000);
  afterAll(() => t.close());

  function api(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
    return t.request({ method, url, headers: { ...p.headers, ...headers }, body });
  }
  const cache = () => t.services.readCache!;
  /** A GET that must be served from the cache (no miss recorded). */
  async function cachedGet(url: string) {
    const misses = cache().misses;
    const res = await api('GET', url);
    expect(cache().misses, `${url} was not a cache hit`).toBe(misses);
    return res;
  }

  it('answers a repeated published read from the cache, with the same body and tag', async () => {
    const first = await api('GET', `/api/posts/${post}`);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    const again = await cachedGet(`/api/posts/${post}`);
    expect(again.text).toBe(first.text);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect([first.headers['x-cache'], again.headers['x-cache']]).toEqual(['MISS', 'HIT']);
    const notModified = await api('GET', `/api/posts/${post}`, undefined, { 'if-none-match': String(first.headers.etag) });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
  });

  it('computes a read once however many ask for it at the same time (single flight)', async () => {
    const fresh = (await api('POST', '/api/posts', { state: 'published', data: { title: 'Fresh', author } })).body.uuid;
    const answers = await Promise.all(Array.from({ length: 10 }, () => api('GET', `/api/posts/${fresh}`)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers.filter((a) => a.headers['x-cache'] === 'MISS')).toHaveLength(1);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    await api('DELETE', `/api/posts/${fresh}?force=true`);
  });

  it('serves a list page from the cache with its paginator', async () => {
    const first = await api('GET', '/api/posts?paginate=25');
    const again = await cachedGet('/api/posts?paginate=25');
    expect(again.body).toEqual(first.body);
    expect(again.body.meta.total).toBe(1);
  });

  it('moves on with a draft save, a publish and a change of a linked entry', async () => {
    expect((await api('PATCH', `/api/posts/${post}`, { data: { title: 'Two' } })).status).toBe(200);
    const dirty = await api('GET', `/api/posts/${post}`);
    // A published read shows the published version only (docs/entries.md): the draft save is not in it.
    expect(dirty.body).toMatchObject({ is_draft_dirty: false, fields: { title: 'One' } });

    expect((await api('POST', `/api/posts/${post}/publish`)).status).toBe(200);
    expect((await api('GET', `/api/posts/${post}`)).body.fields.title).toBe('Two');

    expect((await api('PATCH', `/api/authors/${author}`, { data: { name: 'Bea' } })).status).toBe(200);
    expect((await api('POST', `/api/authors/${author}/publish`)).status).toBe(200);
    expect((await api('GET', `/api/posts/${post}`)).body.fields.author).toMatchObject({ uuid: author });
    const list = await api('GET', '/api/posts?paginate=25');
    expect(JSON.stringify(list.body)).toContain("Bea");
  });

  it('moves on with a change made outside this process (plain SQL, as another replica would)', async () => {
    await api('GET', `/api/posts/${post}`);
    await cachedGet(`/api/posts/${post}`);
    await t.database.query(`UPDATE entries SET published_data = jsonb_set(published_data, '{title}', '"From SQL"') WHERE uuid = $1`, [post]);
    expect((await api('GET', `/api/posts/${post}`)).body.fields.title).toBe('From SQL');
  });

  it('moves on with a schema change (a renamed field renames the key)', async () => {
    await api('GET', `/api/posts/${post}`);
    const fields = (await api('GET', '/api/collections/posts')).body.fields as Array<{ uuid: string; name: string }>;
    const title = fields.find((f) => f.name === 'title')!;
    expect((await api('PUT', `/api/collections/posts/fields/${title.uuid}`, { type: 'text', label: 'Headline', name: 'headline' })).status).toBe(200);
    const res = await api('GET', `/api/posts/${post}`);
    expect(res.body.fields).toHaveProperty('headline');
    expect(res.body.fields).not.toHaveProperty('title');
  });

  it('keeps drafts, errors and other projects out of it', async () => {
    const misses = cache().misses;
    await api('GET', `/api/posts/${post}?state=draft`);
    await api('GET', `/api/posts/${post}?state=draft`);
    expect(cache().misses).toBe(misses);
    expect((await api('GET', '/api/posts/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await api('GET', '/api/posts/00000000-0000-4000-8000-000000000000')).status).toBe(404);

    const other = await t.project({ name: 'Other' });
    const res = await t.request({ method: 'GET', url: `/api/posts/${post}`, headers: other.headers });
    expect(res.status).toBe(404);
    const noRead = await p.tokenWith(['create']);
    expect((await t.request({ method: 'GET', url: `/api/posts/${post}`, headers: noRead })).status).toBe(403);
  });

  it('never serves an answer older than the last committed write, under concurrent writes', async () => {
    const writes = Array.from({ length: 12 }, (_, i) => i);
    let stop = false;
    const readers = Array.from({ length: 4 }, async () => {
      while (!stop) {
        await api('GET', `/api/posts/${post}`);
        // inject() and in-memory PGlite resolve through microtasks only; without a macrotask turn the
        // readers would starve the writer's timers (DataLoader batching) instead of racing it.
        await new Promise((r) => setTimeout(r, 1));
      }
    });
    try {
      for (const i of writes) {
        expect((await api('PATCH', `/api/posts/${post}`, { data: { headline: `v${i}` } })).status).toBe(200);
        expect((await api('POST', `/api/posts/${post}/publish`)).status).toBe(200);
        // Read-your-writes: the first read after the write's response sees it.
        expect((await api('GET', `/api/posts/${post}`)).body.fields.headline).toBe(`v${i}`);
      }
    } finally {
      stop = true;
      await Promise.all(readers);
    }
  });
});

describe('published read cache switched off', () => {
  it('READ_CACHE_MB=0 leaves no cache and reads still work', async () => {
    const t = await startTestApp({ env: { READ_CACHE_MB: '0' } });
    try {
      expect(t.services.readCache).toBeUndefined();
      const p = await t.project();
      expect((await t.request({ method: 'GET', url: '/api/collections', headers: p.headers })).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('GraphQL content-read cache (PostgreSQL)', () => {
  let t: TestApp;
  let p: TestProject;
  let post: string;
  beforeAll(async () => {
    ({ t, p } = await world({ project: { name: 'GraphQL cache' }, via: 'api', collections: [posts()] }));
    post = (await t.request({ method: 'POST', url: '/api/posts', headers: p.headers, body: { state: 'published', data: { title: 'One' } } })).body.uuid;
  }, 120_000);
  afterAll(() => t.close());

  const GET = 'query($uuid: ID!) { post(uuid: $uuid) { uuid title versions { nodes { versionNumber label } } } }';
  const titleOf = async (headers = p.headers) => (await t.graphql(GET, { uuid: post }, headers)).body;

  it('serves a repeated typed read from the cache and moves on with every committed change', async () => {
    const first = await titleOf();
    expect(first.errors).toBeUndefined();
    expect(first.data.post.title).toBe('One');
    expect(await titleOf()).toEqual(first);

    // Counting statements proves the second answer came from memory: only authentication ran.
    const { queries: statements } = await countQueries(() => titleOf());
    expect(statements).toBe(1);

    await t.request({ method: 'PATCH', url: `/api/posts/${post}`, headers: p.headers, body: { data: { title: 'Two' } } });
    await t.request({ method: 'POST', url: `/api/posts/${post}/publish`, headers: p.headers });
    expect((await titleOf()).data.post.title).toBe('Two');

    // A version label touches only entry_versions: the trigger there moves the generation too.
    const label = await t.request({ method: 'PATCH', url: `/api/posts/${post}/versions/2`, headers: p.headers, body: { label: 'launch' } });
    expect(label.status).toBe(200);
    expect((await titleOf()).data.post.versions.nodes).toContainEqual({ versionNumber: 2, label: 'launch' });
  });

  it('computes a typed read once however many ask for it at the same time (single flight)', async () => {
    // A change moves the generation, so the next read of each kind is a miss.
    const bump = () => t.request({ method: 'PATCH', url: `/api/posts/${post}`, headers: p.headers, body: { data: { title: 'Draft only' } } });
    await bump();
    const { queries: one } = await countQueries(() => titleOf());
    await bump();
    const { result, queries: ten } = await countQueries(() => Promise.all(Array.from({ length: 10 }, () => titleOf())));
    expect(new Set(result.map((r) => JSON.stringify(r))).size).toBe(1);
    // One computation plus one authentication statement per request.
    expect(ten).toBe(one + 9);
  });

  it('checks the read ability on every request, hit or not', async () => {
    await titleOf();
    const noRead = await p.tokenWith(['create']);
    const res = await titleOf(noRead);
    expect(res.data?.post ?? null).toBeNull();
    expect(res.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('does not cache mutations or results with errors', async () => {
    const missing = await t.graphql(GET, { uuid: '00000000-0000-4000-8000-000000000000' }, p.headers);
    expect(missing.body.errors).toBeDefined();
    await t.request({ method: 'POST', url: '/api/posts', headers: p.headers, body: { state: 'published', data: { title: 'Late' } } });
    const list = await t.graphql('{ posts { data { title } pageInfo { total } } }', {}, p.headers);
    expect(list.body.data.posts.pageInfo.total).toBe(2);
  });
});

describe('read cache memory', () => {
  it('releases waiting requests when the one computing a key never reports', async () => {
    const { ReadCache } = await import('../../src/edge/read-cache/store.ts');
    vi.useFakeTimers();
    try {
      const cache = new ReadCache(1_048_576);
      expect(cache.begin('1|1|1|0|k')).not.toBeNull();
      expect(cache.begin('1|1|1|0|k')).toBeNull();
      const waiting = cache.waitFor('1|1|1|0|k')!;
      await vi.advanceTimersByTimeAsync(10_000);
      await expect(waiting).resolves.toBeUndefined();
      // The key is free again: the next request leads.
      expect(cache.begin('1|1|1|0|k')).not.toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it('drops a project\u2019s older generations when a newer one is stored, and never stores an older one', async () => {
    const { ReadCache } = await import('../../src/edge/read-cache/store.ts');
    const cache = new ReadCache(1_048_576);
    const read = { json: '{}', etag: 'W/"x"' };
    // Layout: project|scope|generations|schema revision|settings|parts (src/edge/read-cache/store.ts).
    cache.set('1|*|5|1|0|a', read);
    cache.set('1|*|5|1|0|b', read);
    cache.set('2|*|9|1|0|a', read);
    expect(cache.size).toBe(3);
    cache.set('1|*|6|1|0|a', read);
    expect(cache.get('1|*|5|1|0|a')).toBeUndefined();
    expect(cache.get('1|*|5|1|0|b')).toBeUndefined();
    expect(cache.get('2|*|9|1|0|a')).toBe(read);
    cache.set('1|*|5|1|0|c', read);
    expect(cache.get('1|*|5|1|0|c')).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it('keeps generations per collection scope: a newer one drops only its own scope', async () => {
    const { ReadCache } = await import('../../src/edge/read-cache/store.ts');
    const cache = new ReadCache(1_048_576);
    const read = { json: '{}', etag: 'W/"x"' };
    cache.set('1|c1p|5|1|0|a', read);
    cache.set('1|c2p|3|1|0|a', read);
    cache.set('1|c1p,c2p|5.3|1|0|g', read);
    cache.set('1|c1p|6|1|0|a', read);
    expect(cache.get('1|c1p|5|1|0|a')).toBeUndefined();
    expect(cache.get('1|c2p|3|1|0|a')).toBe(read);
    expect(cache.get('1|c1p,c2p|5.3|1|0|g')).toBe(read);
    cache.set('1|c1p,c2p|5.4|1|0|g', read);
    expect(cache.get('1|c1p,c2p|5.3|1|0|g')).toBeUndefined();
    cache.set('1|c1p,c2p|5.3|1|0|h', read);
    expect(cache.get('1|c1p,c2p|5.3|1|0|h')).toBeUndefined();
  });
});
