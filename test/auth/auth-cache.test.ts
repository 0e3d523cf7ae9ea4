import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { world, posts } from '../helpers/world.ts';
import { countQueries } from '../helpers/sql-count.ts';
import { AuthCache } from '../../src/auth/auth-cache.ts';
import type { AuthRow } from '../../src/auth/credentials.ts';
import { CHANGE_FEED_APPLICATION, type Change, type ContentChange } from '../../src/db/change-feed.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it holds or `ms` pass; returns whether it held. */
async function eventually(check: () => Promise<boolean>, ms = 3000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await sleep(10);
  }
  return false;
}

/** A feed that is live and never notifies: only what the process itself does can drop an entry. */
function silentFeed() {
  const subscribers = new Set<(c: Change) => void>();
  const content = new Set<(c: ContentChange) => void>();
  const feed = {
    live: true,
    session: 1,
    subscribe(fn: (c: Change) => void) {
      subscribers.add(fn);
      return () => subscribers.delete(fn);
    },
    subscribeContent(fn: (c: ContentChange) => void) {
      content.add(fn);
      return () => content.delete(fn);
    },
    emit(c: Change) {
      for (const fn of subscribers) fn(c);
    },
    emitContent(c: ContentChange) {
      for (const fn of content) fn(c);
    },
  };
  return feed;
}

/**
 * The in-process authentication cache (src/auth/auth-cache.ts). AUTH_CACHE_MS is an hour here, so
 * every change a test sees arrives through the database's notification or this process's own
 * write, never through expiry.
 */
describe('authentication cache (PostgreSQL, LISTEN/NOTIFY)', () => {
  let t: TestApp;
  let p: TestProject;
  let sql: pg.Client;
  let post: string;

  beforeAll(async () => {
    ({ t, p } = await world({ app: { env: { AUTH_CACHE_MS: '3600000' } }, project: { name: 'Auth cache' }, via: 'api', collections: [posts()] }));
    post = (await api('POST', '/api/posts', { state: 'published', data: { title: 'One' } })).body.uuid;
    // "Another process": its own connection, outside the app's pool.
    sql = new pg.Client({ connectionString: t.databaseUrl });
    await sql.connect();
  }, 120_000);
  afterAll(async () => {
    await sql.end();
    await t.close();
  });

  function api(method: string, url: string, body?: unknown, headers: Record<string, string> = p.headers) {
    return t.request({ method, url, headers, body });
  }
  /** Waits until a request with `headers` is answered without a single statement. */
  async function warm(url: string, headers: Record<string, string> = p.headers) {
    const ok = await eventually(async () => {
      const { result, queries } = await countQueries(() => api('GET', url, undefined, headers));
      return result.status === 200 && queries === 0;
    });
    expect(ok, `${url} never became a statement-free cached request`).toBe(true);
  }

  it('answers a cached published read without asking the database anything', async () => {
    await warm(`/api/posts/${post}`);
    const { result, queries } = await countQueries(() => api('GET', `/api/posts/${post}`));
    expect(result.status).toBe(200);
    expect(result.headers['x-cache']).toBe('HIT');
    expect(queries).toBe(0);
  });

  it('refuses a token revoked by another process as soon as the notification arrives', async () => {
    const headers = await p.tokenWith('read');
    await warm(`/api/posts/${post}`, headers);
    const hash = (await sql.query<{ token_hash: string }>(`SELECT token_hash FROM api_tokens WHERE name = 'test read' ORDER BY id DESC LIMIT 1`)).rows[0].token_hash;
    await sql.query(`UPDATE api_tokens SET revoked_at = now() WHERE token_hash = $1`, [hash]);
    expect(await eventually(async () => (await api('GET', `/api/posts/${post}`, undefined, headers)).status === 401)).toBe(true);
  });

  it('a read that raced a revocation is not kept: the next request is refused', async () => {
    const headers = await p.tokenWith('read');
    const hash = (await sql.query<{ token_hash: string }>(`SELECT token_hash FROM api_tokens ORDER BY id DESC LIMIT 1`)).rows[0].token_hash;
    await warm(`/api/posts/${post}`);
    const cache = t.services.authCache!;
    const db = t.services.database;
    const query = db.query;
    // The racing request reads the token while it is still valid, then is held before it can store
    // what it read, until the revocation has been committed and its notification processed.
    let arrived!: () => void;
    const reached = new Promise<void>((r) => (arrived = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let held = false;
    db.query = (async (text: string, params?: unknown[], opts?: { name?: string }) => {
      const rows = await query.call(db, text, params, opts);
      if (opts?.name === 'cms_authenticate' && !held) {
        held = true;
        arrived();
        await released;
      }
      return rows;
    }) as typeof db.query;
    try {
      const racing = api('GET', `/api/posts/${post}`, undefined, headers);
      await reached;
      expect(cache.size).toBeGreaterThan(0);
      await sql.query(`UPDATE api_tokens SET revoked_at = now() WHERE token_hash = $1`, [hash]);
      // The notification dropped the project's entries (the warmed `*` token's among them).
      expect(await eventually(async () => cache.size === 0)).toBe(true);
      release();
      expect((await racing).status).toBe(200);
      expect((await api('GET', `/api/posts/${post}`, undefined, headers)).status).toBe(401);
    } finally {
      db.query = query;
    }
  });

  it('sees abilities changed by another process', async () => {
    const headers = await p.tokenWith('read');
    await warm(`/api/posts/${post}`, headers);
    await sql.query(`UPDATE api_tokens SET abilities = '{}' WHERE id = (SELECT max(id) FROM api_tokens)`);
    expect(await eventually(async () => (await api('GET', `/api/posts/${post}`, undefined, headers)).status === 403)).toBe(true);
  });

  it('serves content committed by another process, not the cached answer', async () => {
    await warm(`/api/posts/${post}`);
    await sql.query(`UPDATE entries SET published_data = jsonb_set(published_data, '{title}', '"Changed by SQL"') WHERE uuid = $1`, [post]);
    const fresh = await eventually(async () => (await api('GET', `/api/posts/${post}`)).body?.fields?.title === 'Changed by SQL');
    expect(fresh).toBe(true);
  });

  it('keeps the authentication through content commits by another process, with their generations', async () => {
    await warm(`/api/posts/${post}`);
    const before = await api('GET', `/api/posts/${post}`);
    expect(before.headers['x-cache']).toBe('HIT');
    // A draft save leaves the published read cached; a published change must drop it. Neither may
    // make the next request authenticate again.
    await sql.query(`UPDATE entries SET data = jsonb_set(data, '{title}', '"Draft by SQL"') WHERE uuid = $1`, [post]);
    await sleep(50);
    const draftSaved = await countQueries(() => api('GET', `/api/posts/${post}`));
    expect(draftSaved.result.headers['x-cache']).toBe('HIT');
    expect(draftSaved.queries).toBe(0);
    await sql.query(`UPDATE entries SET published_data = jsonb_set(published_data, '{title}', '"Published by SQL"') WHERE uuid = $1`, [post]);
    expect(await eventually(async () => (await api('GET', `/api/posts/${post}`)).body?.fields?.title === 'Published by SQL')).toBe(true);
    // The answer above was a miss: the entry's statement, and no authentication statement with it.
    await sql.query(`UPDATE entries SET published_data = jsonb_set(published_data, '{title}', '"Again by SQL"') WHERE uuid = $1`, [post]);
    let statements = 0;
    expect(
      await eventually(async () => {
        const { result, queries } = await countQueries(() => api('GET', `/api/posts/${post}`));
        statements = queries;
        return result.body?.fields?.title === 'Again by SQL';
      }),
    ).toBe(true);
    expect(statements).toBe(1);
  });

  it('forgets the authentication when another process changes a collection row', async () => {
    // The cached answer maps collection slugs to ids; plain SQL may change one without moving the
    // project's schema revision, so the collections row's own notification must drop the answer.
    await warm(`/api/posts/${post}`);
    await sql.query(`UPDATE collections SET name = 'Posts!' WHERE slug = 'posts' AND project_id = $1`, [p.id]);
    expect(await eventually(async () => (await countQueries(() => api('GET', `/api/posts/${post}`))).queries > 0)).toBe(true);
    await warm(`/api/posts/${post}`);
  });

  it('forgets nothing it should not: a change to another project leaves this one cached', async () => {
    const other = await t.project({ name: 'Other' });
    await warm(`/api/posts/${post}`);
    await sql.query(`UPDATE projects SET description = 'touched' WHERE id = $1`, [other.id]);
    await sleep(50);
    const { queries } = await countQueries(() => api('GET', `/api/posts/${post}`));
    expect(queries).toBe(0);
  });

  it('falls back to the database while the feed is down, and caches again once it is back', async () => {
    await warm(`/api/posts/${post}`);
    await sql.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`, [CHANGE_FEED_APPLICATION]);
    // While the feed is down nothing is served from memory, so a revocation made now is seen at once.
    const headers = await p.tokenWith('read');
    expect(await eventually(async () => t.services.authCache!.size === 0, 2000)).toBe(true);
    const { queries } = await countQueries(() => api('GET', `/api/posts/${post}`, undefined, headers));
    expect(queries).toBeGreaterThan(0);
    await warm(`/api/posts/${post}`);
  });
});

describe('authentication cache: read-your-writes without the notification', () => {
  let t: TestApp;
  let p: TestProject;
  let post: string;
  beforeAll(async () => {
    const w = await world({ app: { env: { AUTH_CACHE_MS: '3600000' } }, project: { name: 'Own writes' }, via: 'api' });
    ({ t, p } = w);
    // Swap in a cache whose feed never notifies: a fresh read after a write can only come from the
    // process forgetting the project itself.
    t.services.authCache = new AuthCache<AuthRow>(silentFeed(), 3_600_000);
    await w.collection(posts());
    post = (await api('POST', '/api/posts', { state: 'published', data: { title: 'One' } })).body.uuid;
  }, 120_000);
  afterAll(() => t.close());

  const api = (method: string, url: string, body?: unknown) => t.request({ method, url, headers: p.headers, body });

  it('a REST write is visible to the very next read on this replica', async () => {
    await api('GET', `/api/posts/${post}`);
    expect((await api('GET', `/api/posts/${post}`)).headers['x-cache']).toBe('HIT');
    expect((await api('PUT', `/api/posts/${post}`, { data: { title: 'Two' } })).status).toBe(200);
    expect((await api('POST', `/api/posts/${post}/publish`)).status).toBe(200);
    expect((await api('GET', `/api/posts/${post}`)).body.fields.title).toBe('Two');
  });

  it('holds under concurrent readers refilling the cache while the writes commit', async () => {
    let stop = false;
    const readers = Array.from({ length: 4 }, async () => {
      while (!stop) {
        await api('GET', `/api/posts/${post}`);
        await sleep(1);
      }
    });
    try {
      for (let i = 0; i < 12; i++) {
        expect((await api('PUT', `/api/posts/${post}`, { data: { title: `v${i}` } })).status).toBe(200);
        expect((await api('POST', `/api/posts/${post}/publish`)).status).toBe(200);
        expect((await api('GET', `/api/posts/${post}`)).body.fields.title).toBe(`v${i}`);
      }
    } finally {
      stop = true;
      await Promise.all(readers);
    }
  });

  it('a GraphQL mutation is visible to the very next read on this replica', async () => {
    await api('GET', `/api/posts/${post}`);
    const res = await t.graphql(
      `mutation($u: String!, $id: ID!) {
        updateEntry(collection: "posts", uuid: $u, data: { title: "Three" }) { uuid }
        publishEntry(collection: "posts", uuid: $id) { __typename }
      }`,
      { u: post, id: post },
      p.headers,
    );
    expect(res.body.errors).toBeUndefined();
    expect((await api('GET', `/api/posts/${post}`)).body.fields.title).toBe('Three');
  });
});

describe('AuthCache: a read that raced a change is not kept', () => {
  const row = { id: 7 } as AuthRow;

  it('drops an answer whose read began before the project was forgotten', () => {
    const feed = silentFeed();
    const cache = new AuthCache<AuthRow>(feed, 60_000);
    const ticket = cache.ticket();
    feed.emit({ kind: 'project', projectId: 7 });
    cache.set(ticket, 'k', 7, row);
    expect(cache.get('k')).toBeUndefined();
    cache.set(cache.ticket(), 'k', 7, row);
    expect(cache.get('k')).toBe(row);
  });

  it('keeps an answer when only another project changed, drops it on forget-all or a new feed session', () => {
    const feed = silentFeed();
    const cache = new AuthCache<AuthRow>(feed, 60_000);
    let ticket = cache.ticket();
    feed.emit({ kind: 'project', projectId: 8 });
    cache.set(ticket, 'k', 7, row);
    expect(cache.get('k')).toBe(row);

    ticket = cache.ticket();
    feed.emit({ kind: 'all' });
    cache.set(ticket, 'k', 7, row);
    expect(cache.get('k')).toBeUndefined();

    ticket = cache.ticket();
    feed.session++;
    cache.set(ticket, 'k', 7, row);
    expect(cache.get('k')).toBeUndefined();
  });

  const stamped = (generation: string, posts: [number, number, number]) => ({ id: 7, generation, collections: { posts } }) as unknown as AuthRow;

  it('raises the generations of held answers to those a content commit carries, and keeps them', () => {
    const feed = silentFeed();
    const cache = new AuthCache<AuthRow>(feed, 60_000);
    cache.set(cache.ticket(), 'k', 7, stamped('5', [3, 10, 20]));
    feed.emitContent({ projectId: 7, generation: 6n });
    feed.emitContent({ projectId: 7, collections: [[3, 11, 21], [4, 1, 1]] });
    // Heard out of order (two replicas' commits): counters only grow.
    feed.emitContent({ projectId: 7, generation: 4n, collections: [[3, 9, 19]] });
    expect(cache.get('k')).toMatchObject({ generation: '6', collections: { posts: [3, 11, 21] } });
    feed.emitContent({ projectId: 8, generation: 100n });
    expect(cache.get('k')).toMatchObject({ generation: '6' });
  });

  it('raises an answer read before a content commit it had not seen, before keeping it', () => {
    const feed = silentFeed();
    const cache = new AuthCache<AuthRow>(feed, 60_000);
    const ticket = cache.ticket();
    feed.emitContent({ projectId: 7, generation: 9n, collections: [[3, 12, 22]] });
    cache.set(ticket, 'k', 7, stamped('8', [3, 10, 20]));
    expect(cache.get('k')).toMatchObject({ generation: '9', collections: { posts: [3, 12, 22] } });
    // A forget drops what was heard with the answers: a later read is fresh from the database.
    feed.emit({ kind: 'project', projectId: 7 });
    cache.set(cache.ticket(), 'k', 7, stamped('8', [3, 10, 20]));
    expect(cache.get('k')).toMatchObject({ generation: '8' });
  });

  it('shares one read among concurrent misses, but never one that began before a forget', async () => {
    const feed = silentFeed();
    const cache = new AuthCache<AuthRow>(feed, 60_000);
    let loads = 0;
    let finish!: () => void;
    const gate = new Promise<void>((r) => (finish = r));
    const load = async () => {
      const n = ++loads;
      await gate;
      return stamped(String(n), [3, 1, 1]);
    };
    const first = cache.read('k', load, () => true);
    const second = cache.read('k', load, () => true);
    expect(loads).toBe(1);
    feed.emit({ kind: 'project', projectId: 7 });
    const third = cache.read('k', load, () => true);
    expect(loads).toBe(2);
    finish();
    expect((await first)?.generation).toBe('1');
    expect((await second)?.generation).toBe('1');
    expect((await third)?.generation).toBe('2');
    // The first read began before the forget and is not kept; the third is.
    expect(cache.get('k')?.generation).toBe('2');
  });

  it('answers nothing while the feed is down, and nothing older than its time to live', () => {
    const feed = silentFeed();
    let now = 1000;
    const cache = new AuthCache<AuthRow>(feed, 500, 10, () => now);
    cache.set(cache.ticket(), 'k', 7, row);
    feed.live = false;
    expect(cache.get('k')).toBeUndefined();
    feed.live = true;
    expect(cache.get('k')).toBe(row);
    now += 501;
    expect(cache.get('k')).toBeUndefined();
  });
});

describe('authentication cache on embedded PGlite', () => {
  it('is off: every request asks the database, so a revocation is seen by the next one', async () => {
    const t = await startTestApp({ embedded: true, env: { AUTH_CACHE_MS: '3600000' } });
    try {
      expect(t.services.authCache).toBeUndefined();
      const p = await t.project();
      expect((await t.request({ method: 'GET', url: '/api/collections', headers: p.headers })).status).toBe(200);
      await t.database.query(`UPDATE api_tokens SET revoked_at = now() WHERE project_id = $1`, [p.id]);
      expect((await t.request({ method: 'GET', url: '/api/collections', headers: p.headers })).status).toBe(401);
    } finally {
      await t.close();
    }
  }, 60_000);
});
