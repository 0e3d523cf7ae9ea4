import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { contentProject } from './helpers.ts';

/**
 * Relations hydrated in the read's own statement (src/entries/reads/read-rows.ts) answer exactly what the
 * loader answered: which copy of a target, which targets are left out (trashed, another project's,
 * never published without includeDraft, not a UUID), on gets, lists and GraphQL alike. Read cache off,
 * so every request takes the read path. On PGlite too: the statements must run there as well.
 */
describe.each([
  ['PostgreSQL', false],
  ['embedded PGlite', true],
])('relations hydrated with the row (%s)', (_name, embedded) => {
  let t: TestApp;
  let c: Awaited<ReturnType<typeof contentProject>>;
  let published: string;
  let unpublished: string;
  let trashed: string;
  let foreign: string;
  let post: string;
  let pick: string;

  beforeAll(async () => {
    t = await startTestApp({ embedded, env: { READ_CACHE_MB: '0' } });
    c = await contentProject(t);
    const authors = await c.collection('authors', [{ name: 'name', type: 'text' }, { name: 'secret', type: 'text', options: { hiddenInAPI: true } }]);
    const rel = (extra: { includeDraft?: boolean } = {}) => ({ relation: { collection: authors.id, type: 1 as const }, ...extra });
    await c.collection('posts', [
      { name: 'title', type: 'text' },
      { name: 'author', type: 'relation', options: rel() },
      { name: 'others', type: 'relation', options: { relation: { collection: authors.id, type: 2 } } },
      // Relations inside groups are hydrated by the loader (its own statement), not the row's.
      { name: 'credit', type: 'group', options: { repeatable: false }, children: [{ name: 'by', type: 'relation', options: rel() }] },
    ]);
    await c.collection('picks', [{ name: 'author', type: 'relation', options: rel({ includeDraft: true }) }]);

    const make = async (name: string, state: 'published' | 'draft') => {
      const r = await c.create('authors', { state, data: { name, secret: 's3cret' } });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.uuid as string;
    };
    published = await make('Published Ann', 'published');
    unpublished = await make('Draft Bob', 'draft');
    trashed = await make('Trashed Cy', 'published');
    // An entry of another project: its UUID stored in this project's relation must not hydrate.
    const other = await contentProject(t);
    const otherAuthors = await other.collection('authors', [{ name: 'name', type: 'text' }]);
    foreign = (await other.create('authors', { state: 'published', data: { name: 'Foreign Dee' } })).body.uuid;
    expect(otherAuthors.id).toBeGreaterThan(0);

    const p = await c.create('posts', { state: 'published', data: { title: 'P', author: published, others: [published, unpublished, trashed], credit: { by: published } } });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    post = p.body.uuid;
    const k = await c.create('picks', { state: 'published', data: { author: unpublished } });
    expect(k.status, JSON.stringify(k.body)).toBe(201);
    pick = k.body.uuid;
    expect((await c.del('authors', trashed)).status).toBe(200);
    // Stored values no write would accept: another project's entry, a non-UUID and a number.
    const row = await t.database.prisma.entry.findFirstOrThrow({ where: { uuid: post } });
    const publishedData = { ...(row.publishedData as Record<string, unknown>), others: [published, 'not-a-uuid', 7, foreign, trashed, unpublished] };
    await t.database.prisma.entry.update({ where: { id: row.id }, data: { publishedData } });
    // A draft save of the published author: published reads keep showing the published copy.
    expect((await c.patch('authors', published, { data: { name: 'Draft name of Ann' } })).status).toBe(200);
  }, 120_000);
  afterAll(() => t.close());

  const names = (v: unknown) => (v as Array<{ fields: { name: string } }>).map((a) => a.fields.name);

  it('a published get shows published targets only, their published copy, without hidden fields', async () => {
    const r = await c.get('posts', post);
    expect(r.status).toBe(200);
    expect(r.body.fields.author.fields).toEqual({ name: 'Published Ann' });
    expect(r.body.fields.author.uuid).toBe(published);
    expect(r.body.fields.author.is_draft_dirty).toBe(false);
    expect(names(r.body.fields.others)).toEqual(['Published Ann']);
    expect(r.body.fields.credit.by.fields).toEqual({ name: 'Published Ann' });
  });

  it('a draft get shows the targets’ working drafts, never-published ones included, trashed ones not', async () => {
    const r = await c.get('posts', post, '?state=draft');
    expect(r.status).toBe(200);
    expect(r.body.fields.author.fields).toEqual({ name: 'Draft name of Ann' });
    expect(names(r.body.fields.others)).toEqual(['Draft name of Ann', 'Draft Bob']);
    expect(r.body.fields.credit.by.fields).toEqual({ name: 'Draft name of Ann' });
  });

  it('includeDraft shows a never-published target’s draft in a published read', async () => {
    const r = await c.get('picks', pick);
    expect(r.body.fields.author.fields).toEqual({ name: 'Draft Bob' });
    const list = await c.list('picks', '?paginate=10');
    expect(list.body.data[0].fields.author.fields).toEqual({ name: 'Draft Bob' });
  });

  it('lists hydrate the same way as gets', async () => {
    const r = await c.list('posts', '?paginate=10');
    expect(r.status).toBe(200);
    expect(r.body.data[0].fields.author.fields).toEqual({ name: 'Published Ann' });
    expect(names(r.body.data[0].fields.others)).toEqual(['Published Ann']);
    const filtered = await c.list('posts', '?where[author][name][like]=Ann');
    expect(filtered.body.map((p: { uuid: string }) => p.uuid)).toEqual([post]);
  });

  it('one GraphQL request reading the same targets published and as drafts gets each copy', async () => {
    const r = await t.graphql(
      `{ pub: entries(collection: "posts") { data { fields } } draft: entries(collection: "posts", state: "draft") { data { fields } } one: entry(collection: "posts", uuid: "${post}") { fields } }`,
      {},
      c.p.headers,
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.pub.data[0].fields.author.fields.name).toBe('Published Ann');
    expect(r.body.data.draft.data[0].fields.author.fields.name).toBe('Draft name of Ann');
    expect(names(r.body.data.draft.data[0].fields.others)).toEqual(['Draft name of Ann', 'Draft Bob']);
    expect(r.body.data.one.fields.author.fields.name).toBe('Published Ann');
  });
});
