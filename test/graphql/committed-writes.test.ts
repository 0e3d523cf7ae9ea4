import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { typedWorld, type TypedWorld } from './typed-world.ts';

/** A mutation's answer never says "failed" about a write that committed (issue 14 §5). */
describe('GraphQL mutations report what they wrote (PGlite)', () => {
  let t: TestApp;
  let w: TypedWorld;
  beforeAll(async () => {
    t = await startTestApp({ embedded: true });
    w = await typedWorld(t, 'Committed writes');
  });
  afterAll(() => t.close());

  it('reorderCollections and reorderFields answer an admin-only token with the new order', async () => {
    const admin = await w.p.tokenWith(['admin']);
    const before = await w.ok('{ collections { uuid slug fields { uuid name } } }');
    const reversed = [...before.collections].reverse().map((c: { uuid: string }, i: number) => ({ uuid: c.uuid, order: i }));
    const res = await w.gql('mutation($items: [OrderItemInput!]!) { reorderCollections(items: $items) { slug order } }', { items: reversed }, admin);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.reorderCollections.map((c: { slug: string }) => c.slug)).toEqual([...before.collections].reverse().map((c: { slug: string }) => c.slug));

    const posts = before.collections.find((c: { slug: string }) => c.slug === 'posts');
    const fieldOrder = [...posts.fields].reverse().map((f: { uuid: string }, i: number) => ({ uuid: f.uuid, order: i }));
    const fields = await w.gql(
      'mutation($items: [OrderItemInput!]!) { reorderFields(collection: "posts", items: $items) { slug fields { name } } }',
      { items: fieldOrder },
      admin,
    );
    expect(fields.status).toBe(200);
    expect(fields.body.errors).toBeUndefined();
    expect(fields.body.data.reorderFields.fields[0].name).toBe(posts.fields.at(-1).name);
  });

  it('gives a create-only token its created entry, with only `versions` null and FORBIDDEN', async () => {
    const createOnly = await w.p.tokenWith(['create']);
    const res = await w.gql('mutation { createPost(data: { title: "Once" }) { uuid title versions { totalCount } } }', undefined, createOnly);
    expect(res.status).toBe(200);
    expect(res.body.data.createPost).toMatchObject({ title: 'Once', versions: null });
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors?.[0]).toMatchObject({ path: ['createPost', 'versions'], extensions: { code: 'FORBIDDEN' } });
    const stored = await w.rest('GET', `/api/posts/${res.body.data.createPost.uuid}?state=draft`);
    expect(stored.status).toBe(200);
  });

  it('keeps the result of a committed mutation when a later one in the same document fails', async () => {
    const res = await w.gql('mutation { a: createPost(data: { title: "First" }) { uuid } b: createPost(data: { views: 1 }) { uuid } }');
    expect(res.status).toBe(200);
    expect(res.body.data.a.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.data.b).toBeNull();
    expect(res.body.errors?.[0]).toMatchObject({ path: ['b'], extensions: { code: 'VALIDATION_FAILED' } });
    const page = await w.ok('{ posts(state: draft, where: { title: { eq: "First" } }) { pageInfo { total } } }');
    expect(page.posts.pageInfo.total).toBe(1);
  });

  it('answers a mutation that wrote nothing with data (null root) and the error class, HTTP 200 as the GraphQL-over-HTTP spec asks', async () => {
    const res = await w.gql('mutation { createPost(data: { views: 1 }) { uuid } }');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ createPost: null });
    expect(res.body.errors?.[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('refuses a mutation its token\'s schema leaves out before it runs: 403 FORBIDDEN naming the ability, no data', async () => {
    const readOnly = await w.p.tokenWith(['read']);
    const res = await w.gql('mutation { createPost(data: { title: "No" }) { uuid } }', undefined, readOnly);
    expect(res.status).toBe(403);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors?.[0]).toMatchObject({ message: expect.stringContaining('"create"'), extensions: { code: 'FORBIDDEN' } });
  });

  it('answers addProjectLocale to an admin-only token with the project; only collections (needs read) is null', async () => {
    const admin = await w.p.tokenWith(['admin']);
    const res = await w.gql('mutation { addProjectLocale(locale: "fr") { locales collections { slug } } }', undefined, admin);
    expect(res.status).toBe(200);
    expect(res.body.data.addProjectLocale).toMatchObject({ locales: expect.arrayContaining(['fr']), collections: null });
    expect(res.body.errors?.[0]).toMatchObject({ path: ['addProjectLocale', 'collections'], extensions: { code: 'FORBIDDEN' } });
  });
});
