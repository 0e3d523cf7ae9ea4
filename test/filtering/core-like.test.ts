import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../src/db/client.ts';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { world, posts } from '../helpers/world.ts';
import { compileWhere } from '../../src/filtering/index.ts';
import { loadCollectionBySlug } from '../../src/collections/model.ts';

/**
 * `like` on core columns (docs/filtering.md: "treated as `%value%` for core columns"): each column is
 * matched on the text the API renders for it, over REST, the generic GraphQL filter and the typed
 * `where`; the other operators keep the indexes that serve them.
 */
let t: TestApp;
let p: TestProject;
let collectionId: number;
const made: Array<{ id: number; uuid: string; created_at: string; published_at: string | null; title: string }> = [];

async function rest(query: string): Promise<{ status: number; body: any; titles: string[] }> {
  const res = await t.request({ method: 'GET', url: `/api/posts?state=draft&${query}`, headers: p.headers });
  const rows: Array<{ fields: { title: string } }> = Array.isArray(res.body) ? res.body : [];
  return { status: res.status, body: res.body, titles: rows.map((r) => r.fields.title).sort() };
}

beforeAll(async () => {
  const w = await world({ collections: [posts()] });
  ({ t, p } = w);
  collectionId = w.c.posts.id;
  for (const [title, state] of [['a', 'published'], ['b', 'draft'], ['c', 'published']] as const) {
    const res = await t.request({ method: 'POST', url: '/api/posts?timestamps=1', headers: p.headers, body: { data: { title }, state } });
    expect(res.status, res.text).toBe(201);
    made.push({ ...res.body, title });
  }
  // Distinct, known timestamps (the API renders them with toISOString()).
  const times = ['2025-01-02T03:04:05.678Z', '2025-01-02T13:00:00.000Z', '2026-07-08T09:10:11.120Z'];
  for (const [i, m] of made.entries()) {
    await t.database.prisma.$executeRaw(Prisma.sql`UPDATE entries SET created_at = ${times[i]}::timestamptz WHERE uuid = ${m.uuid}::uuid`);
    m.created_at = times[i];
  }
});
afterAll(() => t?.close());

describe('like on core columns over REST', () => {
  it('uuid: a substring of the lowercase text, in any case; eq still wants a whole UUID', async () => {
    const target = made[1];
    const part = target.uuid.slice(9, 18); // spans a hyphen
    expect((await rest(`where[uuid][like]=${part}`)).titles).toEqual(['b']);
    expect((await rest(`where[uuid][like]=${part.toUpperCase()}`)).titles).toEqual(['b']);
    expect((await rest(`where[uuid][like]=${target.uuid}`)).titles).toEqual(['b']);
    const bad = await rest('where[uuid][eq]=1641a456');
    expect(bad.status).toBe(422);
    expect(bad.body.errors['where.uuid.eq']).toEqual(['The value must be a UUID.']);
  });

  it('id: a substring of the decimal id', async () => {
    const target = made[2];
    expect((await rest(`where[id][like]=${target.id}`)).titles).toEqual(['c']);
    const digit = String(made[0].id).slice(-1);
    const expected = made.filter((m) => String(m.id).includes(digit)).map((m) => m.title).sort();
    expect((await rest(`where[id][like]=${digit}`)).titles).toEqual(expected);
  });

  it('timestamps: the UTC ISO-8601 text the API shows, milliseconds and Z included', async () => {
    const shown = await t.request({ method: 'GET', url: `/api/posts/${made[0].uuid}?timestamps=1`, headers: p.headers });
    expect(shown.body.created_at).toBe('2025-01-02T03:04:05.678Z');
    expect((await rest('where[created_at][like]=2025-01-02T')).titles).toEqual(['a', 'b']);
    expect((await rest('where[created_at][like]=05.678z')).titles).toEqual(['a']);
    expect((await rest('where[created_at][like]=T13:00:00.000Z')).titles).toEqual(['b']);
    expect((await rest('where[created_at][like]=2026-07')).titles).toEqual(['c']);
    // Not another rendering: no space separator, no offset.
    expect((await rest('where[created_at][like]=2025-01-02 03')).titles).toEqual([]);
    expect((await rest('where[created_at][like]=%2B00')).titles).toEqual([]);
    // Never-published entries have no published_at, so like never matches them.
    const year = made[0].published_at!.slice(0, 4);
    expect((await rest(`where[published_at][like]=${year}`)).titles).toEqual(['a', 'c']);
  });

  it('state and locale take like too', async () => {
    expect((await rest('where[state][like]=PUB')).titles).toEqual(['a', 'c']);
    expect((await rest('where[locale][like]=E')).titles).toEqual(['a', 'b', 'c']);
  });

  it('% _ and \\ in the value are literal', async () => {
    expect((await rest('where[uuid][like]=%25')).titles).toEqual([]);
    expect((await rest('where[created_at][like]=2025_01')).titles).toEqual([]);
    expect((await rest('where[id][like]=%5C')).titles).toEqual([]);
  });

  it('combines with other operators and or-groups; a list is still refused for like', async () => {
    expect((await rest(`where[created_at][like]=2025&where[state][eq]=draft`)).titles).toEqual(['b']);
    expect((await rest(`where[or][0][uuid][like]=${made[0].uuid.slice(0, 8)}&where[or][1][id][eq]=${made[2].id}`)).titles).toEqual(['a', 'c']);
    const bad = await rest('where[uuid][like][]=a&where[uuid][like][]=b');
    expect(bad.status).toBe(422);
    expect(bad.body.errors['where.uuid.like']).toBeDefined();
  });
});

describe('like on core columns over GraphQL', () => {
  it('the generic filter and where JSON', async () => {
    const res = await t.graphql(
      `query($f: [EntryWhereInput!], $w: JSON) {
        a: entries(collection: "posts", state: "draft", filter: $f) { data { uuid } }
        b: entries(collection: "posts", state: "draft", where: $w) { data { uuid } }
      }`,
      { f: [{ field: 'uuid', like: made[2].uuid.slice(-6).toUpperCase() }], w: { created_at: { like: '2025-01-02T13' } } },
      p.headers,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.a.data).toEqual([{ uuid: made[2].uuid }]);
    expect(res.body.data.b.data).toEqual([{ uuid: made[1].uuid }]);
  });

  it('the typed where offers like on id, uuid and the timestamps', async () => {
    const res = await t.graphql(
      `query($u: String, $i: String, $c: String) {
        u: posts(state: draft, where: { uuid: { like: $u } }) { data { uuid } }
        i: posts(state: draft, where: { id: { like: $i } }) { data { uuid } }
        c: posts(state: draft, where: { createdAt: { like: $c } }) { data { uuid } }
      }`,
      { u: made[0].uuid.slice(4, 12), i: String(made[1].id), c: '2026-07-08T09:10:11.120Z' },
      p.headers,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.u.data).toEqual([{ uuid: made[0].uuid }]);
    expect(res.body.data.i.data.map((e: { uuid: string }) => e.uuid)).toContain(made[1].uuid);
    expect(res.body.data.c.data).toEqual([{ uuid: made[2].uuid }]);
  });
});

describe('indexes', () => {
  it('eq on uuid and id still probe their unique indexes', async () => {
    // Enough rows that a scan would cost more than the probe.
    await t.database.runScript(`
      INSERT INTO entries (uuid, project_id, collection_id, locale, state, data, created_at, updated_at)
      SELECT gen_random_uuid(), ${p.id}, ${collectionId}, 'en', 'draft', '{}', now(), now() FROM generate_series(1, 20000);
      ANALYZE entries;`);
    const posts = await loadCollectionBySlug(t.database.prisma, p.id, 'posts');
    for (const [where, index] of [
      [{ uuid: { eq: made[0].uuid } }, 'entries_uuid_key'],
      [{ id: { eq: String(made[0].id) } }, 'entries_pkey'],
    ] as const) {
      const cond = await compileWhere(where, { db: t.database.prisma, projectId: p.id, collection: posts, column: 'data', alias: 'e' });
      const rows = await t.database.prisma.$queryRaw<Array<{ 'QUERY PLAN': string }>>(
        Prisma.sql`EXPLAIN SELECT e.id FROM entries e WHERE e.collection_id = ${collectionId} AND e.deleted_at IS NULL AND ${cond!}`,
      );
      const text = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(text, text).toContain(index);
    }
  });
});
