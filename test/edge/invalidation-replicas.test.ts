import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppServices } from '../../src/services.ts';
import type { buildServer } from '../../src/http/server.ts';
import { startSecondReplica, startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { world, posts, collection, field } from '../helpers/world.ts';
import { countQueries } from '../helpers/sql-count.ts';

/** Polls `check` until it holds or `ms` pass (the change feed's latency, with room for a loaded machine). */
async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

/**
 * Two replicas on one database, each holding authentications (and so the generations) in memory
 * for an hour: replica B learns of a write made through A only from the change feed's notification.
 * A write that must drop B's cached read does so within the feed's latency; a draft save, and a
 * write to another collection, leave B's published reads cached.
 */
describe('fine invalidation across two replicas (PostgreSQL, change log and hints)', () => {
  let a: TestApp;
  let bServices: AppServices;
  let b: Awaited<ReturnType<typeof buildServer>>;
  let closeB: (() => Promise<void>) | undefined;
  let p: TestProject;
  let post: string;
  let tag: string;

  beforeAll(async () => {
    const env = { AUTH_CACHE_MS: '3600000' };
    a = await startTestApp({ env });
    ({ services: bServices, server: b, close: closeB } = await startSecondReplica(a, { env }));
    ({ p } = await world({ app: a, project: { name: 'Replicas' }, via: 'api', collections: [posts(), collection('tags', [field.text('label')])] }));
    post = (await onA('POST', '/api/posts', { state: 'published', data: { title: 'One' } })).body.uuid;
    tag = (await onA('POST', '/api/tags', { state: 'published', data: { label: 'news' } })).body.uuid;
  }, 120_000);
  afterAll(async () => {
    await closeB?.();
    await a.close();
  });

  async function onA(method: string, url: string, body?: unknown) {
    const res = await a.request({ method, url, headers: p.headers, body });
    expect(res.status, `${method} ${url}: ${res.text}`).toBeLessThan(300);
    return res;
  }
  async function restOnB(url: string) {
    const res = await b.inject({ method: 'GET', url, headers: p.headers });
    return { status: res.statusCode, body: JSON.parse(res.body), cache: res.headers['x-cache'] };
  }
  async function gqlOnB(query: string) {
    const cache = bServices.graphqlReadCache!;
    const hits = cache.hits;
    const res = await b.inject({ method: 'POST', url: '/graphql', headers: { ...p.headers, 'content-type': 'application/json' }, payload: JSON.stringify({ query }) });
    const body = JSON.parse(res.body);
    expect(body.errors).toBeUndefined();
    return { data: body.data, hit: cache.hits > hits };
  }
  const POSTS = '{ posts { data { uuid title } } }';

  /** Until B answers the published post and list from its caches. */
  async function warmB() {
    const warm = await eventually(async () => (await restOnB(`/api/posts/${post}`)).cache === 'HIT' && (await gqlOnB(POSTS)).hit);
    expect(warm, 'B never served its reads from the cache').toBe(true);
  }
  /**
   * Until B has heard every commit made so far: a tag published through A after them becomes
   * visible on B (notifications arrive in commit order on one connection).
   */
  async function syncB(label: string) {
    await onA('PATCH', `/api/tags/${tag}`, { data: { label } });
    await onA('POST', `/api/tags/${tag}/publish`);
    const seen = await eventually(async () => (await restOnB(`/api/tags/${tag}`)).body.fields?.label === label);
    expect(seen, 'B never heard of the tag publish').toBe(true);
  }

  it('a draft save through A keeps B’s published reads cached, once B has heard of it', async () => {
    await warmB();
    await onA('PATCH', `/api/posts/${post}`, { data: { title: 'One, edited' } });
    await syncB('sync 1');
    const get = await restOnB(`/api/posts/${post}`);
    expect(get.cache).toBe('HIT');
    expect(get.body.fields.title).toBe('One');
    expect((await gqlOnB(POSTS)).hit).toBe(true);
  });

  it('a publish through A drops B’s cached reads within the change feed’s latency', async () => {
    await warmB();
    await onA('POST', `/api/posts/${post}/publish`);
    const moved = await eventually(async () => (await restOnB(`/api/posts/${post}`)).body.fields.title === 'One, edited');
    expect(moved, 'B kept serving the old published post').toBe(true);
    const gqlMoved = await eventually(async () => (await gqlOnB(POSTS)).data.posts.data[0].title === 'One, edited');
    expect(gqlMoved, 'B kept serving the old GraphQL list').toBe(true);
  });

  it('content writes through A keep B’s authentication: B raises its generations and asks nothing', async () => {
    await warmB();
    const authentications = () => {
      let n = 0;
      const query = bServices.database.query;
      bServices.database.query = ((text: string, params?: unknown[], opts?: { name?: string }) => {
        if (opts?.name === 'cms_authenticate') n++;
        return query.call(bServices.database, text, params, opts);
      }) as typeof query;
      return { count: () => n, restore: () => (bServices.database.query = query) };
    };
    const seen = authentications();
    try {
      await onA('PATCH', `/api/posts/${post}`, { data: { title: 'One, third' } });
      await onA('POST', `/api/posts/${post}/publish`);
      expect(await eventually(async () => (await restOnB(`/api/posts/${post}`)).body.fields.title === 'One, third')).toBe(true);
      expect(await eventually(async () => (await gqlOnB(POSTS)).data.posts.data[0].title === 'One, third')).toBe(true);
      await syncB('sync 3');
      expect(seen.count(), 'B authenticated again after a content write').toBe(0);
      // Once heard, B's answers are hits again and cost no statement at all.
      await warmB();
      const { queries } = await countQueries(() => restOnB(`/api/posts/${post}`));
      expect(queries).toBe(0);
    } finally {
      seen.restore();
    }
  });

  it('a token revoked by another process is refused by B within the feed’s latency, content notifications or not', async () => {
    const headers = await p.tokenWith('read');
    const onB = async () => (await b.inject({ method: 'GET', url: `/api/posts/${post}`, headers })).statusCode;
    expect(await onB()).toBe(200);
    // A's database connection, as the CLI's revoke does it.
    const revoked = await a.database.query<{ id: number }>(`UPDATE api_tokens SET revoked_at = now() WHERE project_id = $1 AND name = 'test read' AND revoked_at IS NULL RETURNING id`, [p.id]);
    expect(revoked.length).toBeGreaterThan(0);
    expect(await eventually(async () => (await onB()) === 401)).toBe(true);
  });

  it('a write held open at its commit holds back no other write of the project, and every rule still holds on B', async () => {
    const held = (await onA('POST', '/api/posts', { state: 'published', data: { title: 'Held, before' } })).body.uuid as string;
    const [{ id: heldId }] = await a.database.query<{ id: number }>('SELECT id FROM entries WHERE uuid = $1', [held]);
    await warmB();
    expect((await restOnB(`/api/posts/${held}`)).body.fields.title).toBe('Held, before');
    // Another writer changes the published copy of `held` and stops inside its commit: its commit
    // triggers ran (SET CONSTRAINTS ALL IMMEDIATE), so its change log rows exist, uncommitted.
    const holder = new pg.Client({ connectionString: a.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`UPDATE entries SET published_data = published_data || '{"title": "Held, after"}'::jsonb WHERE id = $1`, [heldId]);
      await holder.query('SET CONSTRAINTS ALL IMMEDIATE');
      // A draft save of another entry commits meanwhile (in time: it waits for nothing of the held
      // transaction), and B keeps its published reads.
      const saved = await Promise.race([
        onA('PATCH', `/api/posts/${post}`, { data: { title: 'One, while held' } }).then(() => true),
        new Promise<false>((r) => setTimeout(() => r(false), 5000)),
      ]);
      expect(saved, 'the draft save waited for the held transaction').toBe(true);
      await syncB('sync held 1');
      expect((await restOnB(`/api/posts/${post}`)).cache).toBe('HIT');
      // A publish of that entry commits too, and B drops its reads of it, held transaction or not.
      await onA('POST', `/api/posts/${post}/publish`);
      expect(await eventually(async () => (await restOnB(`/api/posts/${post}`)).body.fields.title === 'One, while held')).toBe(true);
      expect(await eventually(async () => (await gqlOnB(POSTS)).data.posts.data.some((e: { title: string }) => e.title === 'One, while held'))).toBe(true);
      // Nothing of the held change is visible yet, on either replica.
      expect((await restOnB(`/api/posts/${held}`)).body.fields.title).toBe('Held, before');
      // Its commit comes after theirs, with change log rows drawn before theirs: B still hears of it.
      await holder.query('COMMIT');
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      await holder.end();
    }
    expect(await eventually(async () => (await restOnB(`/api/posts/${held}`)).body.fields.title === 'Held, after'), 'B kept the read from before the held commit').toBe(true);
    expect(await eventually(async () => (await gqlOnB(POSTS)).data.posts.data.some((e: { title: string }) => e.title === 'Held, after'))).toBe(true);
    // The other tests count the posts' list.
    await onA('DELETE', `/api/posts/${held}`);
  });

  it('an unpublish through A drops them too', async () => {
    await warmB();
    await onA('POST', `/api/posts/${post}/unpublish`);
    expect(await eventually(async () => (await restOnB(`/api/posts/${post}`)).status === 404)).toBe(true);
    expect(await eventually(async () => (await gqlOnB(POSTS)).data.posts.data.length === 0)).toBe(true);
    await onA('POST', `/api/posts/${post}/publish`);
    expect(await eventually(async () => (await restOnB(`/api/posts/${post}`)).status === 200)).toBe(true);
  });
});
