import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { countQueries, recordStatements } from '../helpers/sql-count.ts';
import { typedWorld, type TypedWorld } from '../graphql/typed-world.ts';
import { Prisma } from '../../src/db/client.ts';
import { loadCollectionBySlug } from '../../src/collections/model.ts';
import { compileWhere, compileWhereWithCount } from '../../src/filtering/index.ts';
import { publishedReadCondition } from '../../src/collections/field-indexes.ts';

/**
 * Round trips per uncached read (read cache and authentication cache off, so every request pays what a
 * request in a project under writes pays). Statement counts are the stable measure of the miss path on
 * a noisy machine (BENCHMARKS.md): each number here is one round trip to PostgreSQL.
 * Before issue 18 (this test on the previous commit): typed list without total 4 (authentication,
 * page, COUNT, authors), core `entries` without total 4, REST filtered list 7 (authentication, the
 * related collection's schema, the related entries' UUIDs, page, COUNT, authors and their collection).
 * Since the read repository (src/entries/reads/read-rows.ts) a read's top-level relation targets come in
 * the row's own statement: one fewer everywhere (REST get 3 → 2, typed list 3 → 2, filtered list 4 → 3).
 * A nested relation filter's targets are looked up again before the page and COUNT (filtered list
 * 3 → 4), by choice: named, they let the planner pick the page's plan from how many there are.
 */
describe('statements per uncached read (PostgreSQL)', () => {
  let t: TestApp;
  let w: TypedWorld;
  let post: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { READ_CACHE_MB: '0' } });
    w = await typedWorld(t, 'Statements');
    const authors = await w.rest('POST', '/api/bulk/authors/entries', {
      items: ['Ann', 'Anna', 'Bob'].map((name) => ({ state: 'published', data: { name } })),
    });
    expect(authors.status).toBe(201);
    const authorUuids: string[] = authors.body.data.map((a: { uuid: string }) => a.uuid);
    const posts = await w.rest('POST', '/api/bulk/posts/entries', {
      items: Array.from({ length: 30 }, (_, i) => ({ state: 'published', data: { title: `P${i}`, views: i, author: authorUuids[i % 3] } })),
    });
    expect(posts.status).toBe(201);
    post = posts.body.data[0].uuid;
    // Warm the typed schema and collection caches so only the reads are counted.
    await w.ok('{ posts(perPage: 1) { data { uuid } } }');
    await w.rest('GET', '/api/posts?paginate=1');
  }, 120_000);
  afterAll(() => t.close());

  const gql = async (query: string) => {
    const { result, queries } = await countQueries(() => w.ok(query));
    return { data: result, queries };
  };
  const rest = async (url: string) => {
    const { result, queries } = await countQueries(() => w.rest('GET', url));
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    return { body: result.body, queries };
  };

  it('typed list without pageInfo.total: authentication, page with its authors (no COUNT)', async () => {
    const r = await gql('{ posts(perPage: 25) { data { uuid title author { name } } } }');
    expect(r.data.posts.data).toHaveLength(25);
    expect(r.data.posts.data.every((p: { author: { name: string } | null }) => ['Ann', 'Anna', 'Bob'].includes(p.author?.name ?? ''))).toBe(true);
    expect(r.queries).toBe(2);
  });

  it('typed list with hasNextPage only: no COUNT either, and the flag is right', async () => {
    const first = await gql('{ posts(perPage: 25) { data { uuid } pageInfo { hasNextPage currentPage } } }');
    expect(first.data.posts.pageInfo).toEqual({ hasNextPage: true, currentPage: 1 });
    // Relations are hydrated with the page whether selected or not, in the page's statement.
    expect(first.queries).toBe(2);
    const last = await gql('{ posts(perPage: 25, page: 2) { data { uuid } pageInfo { hasNextPage } } }');
    expect(last.data.posts.data).toHaveLength(5);
    expect(last.data.posts.pageInfo.hasNextPage).toBe(false);
  });

  it('typed list with pageInfo.total: authentication, page (with authors) and COUNT side by side', async () => {
    const r = await gql('{ posts(perPage: 25) { data { uuid author { name } } pageInfo { total lastPage } } }');
    expect(r.data.posts.pageInfo).toEqual({ total: 30, lastPage: 2 });
    expect(r.queries).toBe(3);
    // Through a fragment too.
    const f = await gql('query { posts(perPage: 5) { ...P } } fragment P on PostPage { pageInfo { ... on PageInfo { total } } }');
    expect(f.data.posts.pageInfo.total).toBe(30);
  });

  it('core entries without total: no COUNT', async () => {
    const r = await gql('{ entries(collection: "posts", perPage: 25) { data { uuid } currentPage } }');
    expect(r.data.entries.data).toHaveLength(25);
    expect(r.queries).toBe(2);
    const total = await gql('{ entries(collection: "posts", perPage: 25) { total hasMorePages } }');
    expect(total.data.entries).toEqual({ total: 30, hasMorePages: true });
    expect(total.queries).toBe(3);
  });

  it('core entries with pageInfo.hasNextPage only: no COUNT, and the flag is right on both pages', async () => {
    const first = await gql('{ entries(collection: "posts", perPage: 25) { pageInfo { hasNextPage currentPage } } }');
    expect(first.data.entries.pageInfo).toEqual({ hasNextPage: true, currentPage: 1 });
    expect(first.queries).toBe(2);
    const last = await gql('{ entries(collection: "posts", perPage: 25, page: 2) { data { uuid } pageInfo { hasNextPage } hasMorePages } }');
    expect(last.data.entries.data).toHaveLength(5);
    expect(last.data.entries.pageInfo).toEqual({ hasNextPage: false });
    expect(last.data.entries.hasMorePages).toBe(false);
    expect(last.queries).toBe(2);
  });

  it('REST filtered list (range + relation-nested like, with total): the related targets are looked up once, then named', async () => {
    const r = await rest('/api/posts?paginate=25&where[views][between]=0,29&where[author][name][like]=ann');
    expect(r.body.meta.total).toBe(20);
    expect(r.body.data).toHaveLength(20);
    expect(r.body.data.every((p: { fields: { author: { fields: { name: string } } } }) => /^ann/i.test(p.fields.author.fields.name))).toBe(true);
    // Authentication, the nested filter's targets (named so the planner sees how many;
    // src/filtering/compile.ts), then the page (its authors in the same statement) with its total:
    // two ANDed conditions read every match for the COUNT anyway, so the page is taken from them
    // (matchedPageStatement in src/entries/reads/list.ts).
    expect(r.queries).toBe(3);
  });

  it('the targets lookup runs prepared: one name per filter shape whatever its values, the names and target collection in its text', async () => {
    const lookups = async (like: string) => {
      const { result, texts, names } = await recordStatements(() => w.rest('GET', `/api/posts?paginate=25&where[views][between]=0,29&where[author][name][like]=${like}`));
      expect(result.status, JSON.stringify(result.body)).toBe(200);
      const at = texts.flatMap((text, i) => (text.includes('AS uuid FROM entries filter_rel') ? [{ text, name: names[i] }] : []));
      expect(at).toHaveLength(1);
      return { ...at[0], body: result.body };
    };
    const ann = await lookups('ann');
    const bob = await lookups('bob');
    expect(ann.name).toMatch(/^cms_targets_\d+$/);
    expect(bob.name).toBe(ann.name);
    expect(bob.text).toBe(ann.text);
    // A generic plan uses the name field's trigram index only when the name and the collection are in
    // the text; the pattern stays a parameter.
    expect(ann.text).toContain(`->> 'name'::text`);
    expect(ann.text).toMatch(/filter_rel\.collection_id = \d+/);
    expect(ann.text).not.toContain('ann');
    // The prepared lookup answers per its values: Ann and Anna's posts, then Bob's.
    expect(ann.body.meta.total).toBe(20);
    expect(bob.body.meta.total).toBe(10);
    expect(bob.body.data.every((p: { fields: { author: { fields: { name: string } } } }) => p.fields.author.fields.name === 'Bob')).toBe(true);
    // Another shape is another statement.
    const eq = await recordStatements(() => w.rest('GET', '/api/posts?paginate=25&where[author][name][eq]=Bob'));
    expect(eq.result.body.meta.total).toBe(10);
    const other = eq.names[eq.texts.findIndex((t) => t.includes('AS uuid FROM entries filter_rel'))];
    expect(other).toMatch(/^cms_targets_\d+$/);
    expect(other).not.toBe(ann.name);
  });

  it('a relation-nested filter plans as a join against the related collection, not a per-row test', async () => {
    const db = t.database.prisma;
    const posts = await loadCollectionBySlug(db, w.p.id, 'posts');
    const where = { views: { between: '0,29' }, author: { name: { like: 'ann' } } };
    const filter = await compileWhere(where, { db, projectId: w.p.id, collection: posts, column: 'published_data', alias: 'e' });
    const conds = Prisma.sql`e.collection_id = ${posts.id} AND e.deleted_at IS NULL AND ${publishedReadCondition('e')} AND ${filter!}`;
    const plan = (await db.$queryRaw<Array<{ 'QUERY PLAN': string }>>(Prisma.sql`EXPLAIN SELECT count(*) FROM entries e WHERE ${conds}`))
      .map((r) => r['QUERY PLAN'])
      .join('\n');
    // IN (SELECT ...) is pulled up into a join the planner can drive from either side's index; the
    // inlined form was an OR of containment tests in the posts' Filter, and a SubPlan would be a
    // per-row probe.
    expect(plan, plan).toMatch(/Join/);
    expect(plan, plan).not.toMatch(/SubPlan/);
    expect(plan, plan).not.toMatch(/@>/);
  });

  it('the COUNT beside a page takes the relation filter as one array of matches, the page keeps the semi-join', async () => {
    const db = t.database.prisma;
    const posts = await loadCollectionBySlug(db, w.p.id, 'posts');
    const where = { views: { between: '0,29' }, author: { name: { like: 'ann' } } };
    const filter = await compileWhereWithCount(where, { db, projectId: w.p.id, collection: posts, column: 'published_data', alias: 'e' });
    const explain = async (f: Prisma.Sql) => {
      const conds = Prisma.sql`e.collection_id = ${posts.id} AND e.deleted_at IS NULL AND ${publishedReadCondition('e')} AND ${f}`;
      const rows = await db.$queryRaw<Array<{ 'QUERY PLAN': string }>>(Prisma.sql`EXPLAIN SELECT count(*) FROM entries e WHERE ${conds}`);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    };
    // Only a COUNT: under ORDER BY ... LIMIT the array (planned as 10 elements whatever it holds)
    // made a selective nested filter walk the whole primary key.
    const count = await explain(filter!.count);
    expect(count, count).toMatch(/InitPlan/);
    expect(count, count).not.toMatch(/Join/);
    expect(await explain(filter!.rows)).toMatch(/Join/);
    // Without a nested filter both are one and the same.
    const plain = await compileWhereWithCount({ views: { gt: '3' } }, { db, projectId: w.p.id, collection: posts, column: 'published_data', alias: 'e' });
    expect(plain!.count).toBe(plain!.rows);
  });

  it('REST count and pages of a relation-nested filter: the same totals, the targets looked up once', async () => {
    const count = await rest('/api/posts?count=1&where[views][between]=0,29&where[author][name][like]=ann');
    expect(count.body.count).toBe(20);
    // Authentication, the targets, the COUNT.
    expect(count.queries).toBe(3);
    const none = await rest('/api/posts?paginate=5&where[author][name][like]=nobody');
    expect(none.body.meta.total).toBe(0);
    expect(none.body.data).toEqual([]);
    const one = await rest('/api/posts?paginate=5&page=2&where[author][name][like]=bob');
    expect(one.body.meta.total).toBe(10);
    expect(one.body.data).toHaveLength(5);
    // A nested filter beside a reference by numeric id: the id is looked up once for both forms.
    const anna = await rest('/api/posts?paginate=1&where[author][name][like]=anna');
    const annaId: number = anna.body.data[0].fields.author.id;
    const either = await rest(`/api/posts?paginate=25&where[or][0][author][name][like]=bob&where[or][1][author]=${annaId}`);
    expect(either.body.meta.total).toBe(20);
    // Authentication, the reference's UUID, the nested filter's targets, page and COUNT.
    expect(either.queries).toBe(5);
  });

  it('REST get by id with its author hydrated', async () => {
    const r = await rest(`/api/posts/${post}`);
    expect(r.body.fields.author.fields.name).toBe('Ann');
    // Authentication, the entry with its author in one statement.
    expect(r.queries).toBe(2);
  });

  it('a create in a collection that needs no lock: no interactive transaction', async () => {
    const { result, queries } = await countQueries(() => w.rest('POST', '/api/posts', { state: 'published', data: { title: 'Counted', views: 1 } }));
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    expect(result.body.state).toBe('published');
    // Authentication, the ids drawn, one statement writing the entry, its version 1 and both events
    // (src/entries/operations/create-without-lock.ts); the transaction was BEGIN, two statements and COMMIT.
    expect(queries).toBe(3);
  });
});
