import { countQueries } from '../helpers/sql-count.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { contentProject } from './helpers.ts';

const LIST = `query($c: String!, $perPage: Int, $state: String) {
  entries(collection: $c, perPage: $perPage, state: $state) { total currentPage perPage lastPage data { uuid state isDraftDirty fields createdAt } }
}`;

describe('generic GraphQL entry API', () => {
  let t: TestApp;
  let c: Awaited<ReturnType<typeof contentProject>>;
  let authorIds: string[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    c = await contentProject(t, { locales: ['en', 'de'] });
    const authors = await c.collection('authors', [{ name: 'name', type: 'text' }]);
    await c.collection('posts', [
      { name: 'title', type: 'text', validations: { required: { status: true } } },
      { name: 'author', type: 'relation', options: { relation: { collection: authors.id, type: 1 } } },
    ]);
    await c.collection('books', [
      { name: 'title', type: 'text' },
      { name: 'author', type: 'relation', options: { relation: { collection: authors.id, type: 1 } } },
    ]);
    for (let i = 0; i < 10; i++) {
      const a = await c.create('authors', { state: 'published', data: { name: `Author ${i}` } });
      authorIds.push(a.body.uuid);
    }
  });
  afterAll(() => t.close());

  it('create, read, patch, replace, delete and link through mutations', async () => {
    const gql = (q: string, v: Record<string, unknown>) => t.graphql(q, v, c.p.headers);
    const created = await gql(
      'mutation($d: JSON!) { createEntry(collection: "posts", data: $d, state: "published") { uuid state publishedVersionNumber fields } }',
      { d: { title: 'G1', author: authorIds[0] } },
    );
    expect(created.body.errors).toBeUndefined();
    const uuid = created.body.data.createEntry.uuid;
    expect(created.body.data.createEntry).toMatchObject({ state: 'published', publishedVersionNumber: 1, fields: { title: 'G1', author: { uuid: authorIds[0] } } });

    const patched = await gql('mutation($u: String!) { updateEntry(collection: "posts", uuid: $u, data: { title: "G2" }) { isDraftDirty fields } }', { u: uuid });
    expect(patched.body.data.updateEntry).toMatchObject({ isDraftDirty: true, fields: { title: 'G2', author: { uuid: authorIds[0] } } });
    const replaced = await gql('mutation($u: String!) { replaceEntry(collection: "posts", uuid: $u, data: { title: "G3" }) { fields } }', { u: uuid });
    expect(replaced.body.data.replaceEntry.fields).toEqual({ title: 'G3', author: null });
    const invalid = await gql('mutation($u: String!) { replaceEntry(collection: "posts", uuid: $u, data: {}) { uuid } }', { u: uuid });
    expect(invalid.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: { 'data.title': [expect.any(String)] } });

    const one = await gql('query($u: String!) { entry(collection: "posts", uuid: $u) { fields } draft: entry(collection: "posts", uuid: $u, state: "draft") { fields } }', { u: uuid });
    expect(one.body.data.entry.fields.title).toBe('G1');
    expect(one.body.data.draft.fields.title).toBe('G3');

    const de = await gql('mutation { createEntry(collection: "posts", locale: "de", data: { title: "DE" }) { uuid } }', {});
    const linked = await gql('mutation($u: String!, $t: String!) { linkEntryTranslation(collection: "posts", uuid: $u, translationEntryUuid: $t) { message translationGroupId } }', {
      u: uuid,
      t: de.body.data.createEntry.uuid,
    });
    expect(linked.body.data.linkEntryTranslation).toEqual({ message: 'Translation linked successfully.', translationGroupId: expect.any(Number) });

    const deleted = await gql('mutation($u: String!) { deleteEntry(collection: "posts", uuid: $u) { message } }', { u: uuid });
    expect(deleted.body.data.deleteEntry.message).toBe('Content deleted.');
    const gone = await gql('query($u: String!) { entry(collection: "posts", uuid: $u, state: "draft") { uuid } }', { u: uuid });
    expect(gone.body.errors[0].extensions.code).toBe('NOT_FOUND');

    const denied = await t.graphql('mutation { createEntry(collection: "posts", data: { title: "x" }) { uuid } }', {}, await c.p.tokenWith(['read']));
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('lists with paging and the same where object as REST', async () => {
    for (const title of ['one', 'two', 'three']) await c.create('books', { state: 'published', data: { title } });
    const page = await t.graphql(LIST, { c: 'books', perPage: 2 }, c.p.headers);
    expect(page.body.data.entries).toMatchObject({ total: 3, currentPage: 1, perPage: 2, lastPage: 2 });
    expect(page.body.data.entries.data[0].createdAt).toEqual(expect.any(String));
    const filtered = await t.graphql('{ entries(collection: "books", where: { title: { eq: "two" } }) { total data { fields } } }', {}, c.p.headers);
    expect(filtered.body.errors).toBeUndefined();
    expect(filtered.body.data.entries.total).toBe(1);
    const typed = await t.graphql('{ entries(collection: "books", filter: [{ field: "title", in: ["one", "two"] }], where: { title: { not: "one" } }) { total } }', {}, c.p.headers);
    expect(typed.body.errors).toBeUndefined();
    expect(typed.body.data.entries.total).toBe(1);
  });

  it('listing posts with their authors costs the same number of SQL statements for 10 and 100 posts', async () => {
    const authors = await t.database.prisma.collection.findFirstOrThrow({ where: { slug: 'authors', projectId: c.p.id } });
    await c.collection('stories', [
      { name: 'title', type: 'text' },
      { name: 'author', type: 'relation', options: { relation: { collection: authors.id, type: 1 } } },
    ]);
    const stories = await t.database.prisma.collection.findFirstOrThrow({ where: { slug: 'stories', projectId: c.p.id } });
    let made = 0;
    // Rows straight into the table: this test is about reads, and 100 REST creates are slow on a busy machine.
    const seed = async (n: number) => {
      const rows = [];
      const people = await t.database.prisma.entry.createManyAndReturn({
        data: Array.from({ length: n - made }, (_, i) => ({ projectId: c.p.id, collectionId: authors.id, locale: 'en', data: { name: `Author s${made + i}` } })),
      });
      // every story has its own author, so per-author queries would show up as growth
      for (; made < n; made++) rows.push({ projectId: c.p.id, collectionId: stories.id, locale: 'en', data: { title: `P${made}`, author: people[rows.length].uuid } });
      await t.database.prisma.entry.createMany({ data: rows });
    };
    const run = async (perPage = 100) => {
      const { result, queries } = await countQueries(() => t.graphql(LIST, { c: 'stories', perPage, state: 'draft' }, c.p.headers));
      expect(result.body.errors).toBeUndefined();
      return { queries, rows: result.body.data.entries.data as Array<{ fields: { author: { fields: { name: string } } | null } }> };
    };
    await seed(10);
    // Warm caches that are per process, not per request; other variables, so the next run is not
    // answered by the content-read cache.
    await run(99);
    const small = await run();
    await seed(100);
    const big = await run();
    expect(small.rows).toHaveLength(10);
    expect(big.rows).toHaveLength(100);
    expect(big.rows.every((r) => r.fields.author?.fields.name.startsWith('Author'))).toBe(true);
    expect(small.queries).toBeGreaterThan(0);
    expect(big.queries).toBe(small.queries);
  });

  it('assets queries', async () => {
    const r = await t.graphql('{ assets { total data { uuid } } }', {}, c.p.headers);
    expect(r.body.data.assets).toEqual({ total: 0, data: [] });
    const missing = await t.graphql('{ asset(id: "00000000-0000-4000-8000-000000000000") { uuid } }', {}, c.p.headers);
    expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
