import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { contentProject } from './helpers.ts';

/**
 * The plain read path keeps timestamps as PostgreSQL's text and rewrites it to `toISOString()`'s
 * form instead of building Dates (src/entries/reads/read-rows.ts); linked rows come without their `data`
 * when it equals `published_data`. Every timestamp the API shows must be exactly what a Date read
 * by Prisma formats to: no fraction, one or two digits of it, a year before 1000, on
 * the rows read and on their linked entries, on lists, gets and GraphQL, PostgreSQL and PGlite.
 */
const INSTANTS = {
  annCreated: '2026-01-02T03:04:05.000Z',
  annUpdated: '2026-01-02T03:04:05.100Z',
  annPublished: '2026-01-02T03:04:05.120Z',
  annPublishedUpdated: '2026-01-02T03:04:05.123Z',
  bobCreated: '0999-12-31T23:59:59.999Z',
  bobUpdated: '2026-12-31T23:59:59.900Z',
  postCreated: '1970-01-01T00:00:00.001Z',
  postUpdated: '2026-11-26T06:50:13.860Z',
  postPublished: '2000-02-29T12:00:00.000Z',
  postPublishedUpdated: '2026-11-26T23:59:59.990Z',
};

describe.each([
  ['PostgreSQL', false],
  ['embedded PGlite', true],
])('timestamps and linked copies of uncached reads (%s)', (_name, embedded) => {
  let t: TestApp;
  let c: Awaited<ReturnType<typeof contentProject>>;
  let ann: string;
  let bob: string;
  let annPost: string;
  let bobPost: string;

  beforeAll(async () => {
    t = await startTestApp({ embedded, env: { READ_CACHE_MB: '0' } });
    c = await contentProject(t);
    const authors = await c.collection('authors', [{ name: 'name', type: 'text' }]);
    await c.collection('posts', [
      { name: 'title', type: 'text' },
      { name: 'author', type: 'relation', options: { relation: { collection: authors.id, type: 1 } } },
    ]);
    ann = (await c.create('authors', { state: 'published', data: { name: 'Ann' } })).body.uuid;
    bob = (await c.create('authors', { state: 'published', data: { name: 'Bob' } })).body.uuid;
    // Bob's working draft differs from his published copy; Ann's does not.
    expect((await c.patch('authors', bob, { data: { name: 'Bob (draft)' } })).status).toBe(200);
    annPost = (await c.create('posts', { state: 'published', data: { title: 'A', author: ann } })).body.uuid;
    bobPost = (await c.create('posts', { state: 'published', data: { title: 'B', author: bob } })).body.uuid;

    const set = (uuid: string, v: { createdAt?: string; updatedAt?: string; publishedAt?: string; publishedUpdatedAt?: string }) =>
      t.database.prisma.entry.updateMany({
        where: { uuid },
        data: Object.fromEntries(Object.entries(v).map(([k, iso]) => [k, new Date(iso)])),
      });
    await set(ann, { createdAt: INSTANTS.annCreated, updatedAt: INSTANTS.annUpdated, publishedAt: INSTANTS.annPublished, publishedUpdatedAt: INSTANTS.annPublishedUpdated });
    await set(bob, { createdAt: INSTANTS.bobCreated, updatedAt: INSTANTS.bobUpdated });
    await set(annPost, { createdAt: INSTANTS.postCreated, updatedAt: INSTANTS.postUpdated, publishedAt: INSTANTS.postPublished, publishedUpdatedAt: INSTANTS.postPublishedUpdated });
  }, 120_000);
  afterAll(() => t.close());

  /** What the API showed before: Prisma's Dates, formatted by toISOString(). */
  async function expected(uuid: string, state: 'draft' | 'published') {
    const row = await t.database.prisma.entry.findFirstOrThrow({ where: { uuid } });
    return {
      published_at: row.publishedAt?.toISOString() ?? null,
      created_at: row.createdAt.toISOString(),
      updated_at: (state === 'published' ? (row.publishedUpdatedAt ?? row.updatedAt) : row.updatedAt).toISOString(),
    };
  }
  const shown = (r: { published_at: string | null; created_at: string; updated_at: string }) => ({
    published_at: r.published_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
  });

  it('the values set are the edge cases meant', async () => {
    expect(await expected(ann, 'published')).toEqual({ published_at: INSTANTS.annPublished, created_at: INSTANTS.annCreated, updated_at: INSTANTS.annPublishedUpdated });
    expect((await expected(bob, 'draft')).updated_at).toBe(INSTANTS.bobUpdated);
  });

  for (const state of ['published', 'draft'] as const) {
    it(`a ${state} list and get show every timestamp of rows and linked rows as toISOString() does`, async () => {
      const list = await c.list('posts', `?timestamps=1&state=${state}&sort=id:asc`);
      expect(list.status, JSON.stringify(list.body)).toBe(200);
      expect(list.body.map((p: { uuid: string }) => p.uuid)).toEqual([annPost, bobPost]);
      for (const [i, [post, author]] of [[annPost, ann], [bobPost, bob]].entries()) {
        const fromList = list.body[i];
        expect(shown(fromList)).toEqual(await expected(post, state));
        expect(shown(fromList.fields.author)).toEqual(await expected(author, state));
        const get = await c.get('posts', post, `?timestamps=1&state=${state}`);
        expect(get.status).toBe(200);
        expect(get.text).toBe(JSON.stringify(fromList));
      }
      const page = await c.list('posts', `?timestamps=1&state=${state}&sort=id:asc&paginate=10`);
      expect(JSON.stringify(page.body.data)).toBe(JSON.stringify(list.body));
    });
  }

  it('a linked entry shows the copy its read asks for, whether or not its draft equals the published copy', async () => {
    const published = await c.list('posts', '?sort=id:asc');
    expect(published.body.map((p: { fields: { author: { fields: { name: string } } } }) => p.fields.author.fields.name)).toEqual(['Ann', 'Bob']);
    const drafts = await c.list('posts', '?sort=id:asc&state=draft');
    expect(drafts.body.map((p: { fields: { author: { fields: { name: string } } } }) => p.fields.author.fields.name)).toEqual(['Ann', 'Bob (draft)']);
    // One request, both copies of the same targets through one loader.
    const r = await t.graphql(
      `{ pub: entries(collection: "posts", sort: "id:asc") { data { fields } } draft: entries(collection: "posts", state: "draft", sort: "id:asc") { data { fields } } }`,
      {},
      c.p.headers,
    );
    expect(r.body.errors).toBeUndefined();
    const names = (d: Array<{ fields: { author: { fields: { name: string } } } }>) => d.map((p) => p.fields.author.fields.name);
    expect(names(r.body.data.pub.data)).toEqual(['Ann', 'Bob']);
    expect(names(r.body.data.draft.data)).toEqual(['Ann', 'Bob (draft)']);
  });

  it('GraphQL shows the same timestamps on rows and their linked entries', async () => {
    const r = await t.graphql(
      '{ posts(perPage: 10) { data { uuid createdAt updatedAt publishedAt author { uuid createdAt updatedAt publishedAt } } } }',
      {},
      c.p.headers,
    );
    expect(r.body.errors).toBeUndefined();
    const at = (x: { createdAt: string; updatedAt: string; publishedAt: string | null }) => ({ created_at: x.createdAt, updated_at: x.updatedAt, published_at: x.publishedAt });
    for (const p of r.body.data.posts.data) {
      expect(at(p)).toEqual(await expected(p.uuid, 'published'));
      expect(at(p.author)).toEqual(await expected(p.author.uuid, 'published'));
    }
    expect(r.body.data.posts.data).toHaveLength(2);
  });
});

describe('timestamps read in a session time zone other than UTC (PostgreSQL)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { READ_CACHE_MB: '0' } });
  }, 120_000);
  afterAll(() => t.close());

  it('are shown in UTC exactly as before (the text is parsed as pg parses it)', async () => {
    const c = await contentProject(t);
    const authors = await c.collection('authors', [{ name: 'name', type: 'text' }]);
    await c.collection('posts', [{ name: 'author', type: 'relation', options: { relation: { collection: authors.id, type: 1 } } }]);
    const ann = (await c.create('authors', { state: 'published', data: { name: 'Ann' } })).body.uuid;
    const post = (await c.create('posts', { state: 'published', data: { author: ann } })).body.uuid;
    await t.database.prisma.entry.updateMany({ where: { uuid: { in: [ann, post] } }, data: { createdAt: new Date('2026-03-04T23:45:06.780Z') } });
    // Every new session of this database runs in +05:30; the pool's sessions are replaced.
    const [{ db }] = await t.database.query<{ db: string }>('SELECT current_database() AS db');
    await t.database.query(`ALTER DATABASE "${db}" SET timezone TO 'Asia/Kolkata'`);
    const admin = new pg.Client({ connectionString: t.databaseUrl });
    await admin.connect();
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    await admin.end();
    // Until every session of the pool (5) is a new one: five at once, all in the new zone.
    const zones = () => Promise.all(Array.from({ length: 5 }, () => t.database.query<Record<string, string>>('SHOW timezone').then(([r]) => Object.values(r)[0])));
    let seen = ['?'];
    for (let i = 0; i < 100 && !seen.every((z) => z === 'Asia/Kolkata'); i++) {
      await new Promise((r) => setTimeout(r, 20));
      seen = await zones().catch(() => []);
      if (seen.length === 0) seen = ['?'];
    }
    expect(seen).toEqual(Array(5).fill('Asia/Kolkata'));

    const list = await c.list('posts', '?timestamps=1');
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body[0].created_at).toBe('2026-03-04T23:45:06.780Z');
    expect(list.body[0].fields.author.created_at).toBe('2026-03-04T23:45:06.780Z');
    const get = await c.get('posts', post, '?timestamps=1');
    expect(get.text).toBe(JSON.stringify(list.body[0]));
  });
});
