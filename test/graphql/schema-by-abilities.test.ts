import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { world, posts, type World } from '../helpers/world.ts';

/**
 * The typed schema a token receives lists only the root fields its abilities reach: a reader is not
 * offered mutations, a creator no updates, an admin-only token no content writes. A document naming a
 * left-out field is refused before it runs with the operation's own FORBIDDEN (403), never run.
 */
describe('the typed schema follows the token\'s abilities', () => {
  let w: World;
  const INTROSPECT = '{ __schema { queryType { fields { name } } mutationType { fields { name } } subscriptionType { fields { name } } } }';
  const rootFields = async (headers: Record<string, string>) => {
    const res = await w.t.graphql(INTROSPECT, undefined, headers);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    const s = res.body.data.__schema;
    const names = (t: { fields: Array<{ name: string }> } | null) => (t?.fields ?? []).map((f) => f.name);
    return { query: names(s.queryType), mutation: names(s.mutationType), subscription: names(s.subscriptionType) };
  };

  beforeAll(async () => {
    w = await world({ collections: [posts()], tokens: { reader: ['read'], creator: ['create', 'read'], admin: ['admin'], writeOnly: ['create'] } });
  });
  afterAll(() => w.close());

  it('gives each token the root fields of its abilities only', async () => {
    const all = await rootFields(w.p.headers);
    expect(all.mutation).toEqual(expect.arrayContaining(['createPost', 'updatePost', 'deletePost', 'createCollection', 'createWebhook']));

    const reader = await rootFields(w.tokens.reader);
    expect(reader.query).toEqual(expect.arrayContaining(['posts', 'post']));
    expect(reader.mutation).toEqual([]);
    expect(reader.subscription).toContain('postChanged');

    const creator = await rootFields(w.tokens.creator);
    expect(creator.mutation).toContain('createPost');
    expect(creator.mutation.filter((n) => /^(update|delete|publish)Post$|Collection|Webhook/.test(n))).toEqual([]);

    const admin = await rootFields(w.tokens.admin);
    expect(admin.mutation).toEqual(expect.arrayContaining(['createCollection', 'createWebhook']));
    expect(admin.mutation).not.toContain('createPost');
    expect(admin.query).toContain('webhooks');
  });

  it('refuses a left-out field before anything runs: 403 FORBIDDEN naming the ability', async () => {
    const res = await w.t.graphql('mutation { createCollection(input: { name: "X", slug: "x", fields: [{ type: "text", label: "T", name: "t" }] }) { slug } }', undefined, w.tokens.creator);
    expect(res.status).toBe(403);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors?.[0]).toMatchObject({ message: expect.stringContaining('"admin"'), extensions: { code: 'FORBIDDEN' } });
    // Nothing was made.
    expect((await w.api('GET', '/api/collections/x')).status).toBe(404);
  });

  it('keeps the queries of a token without read (a schema needs a query type); running one is refused', async () => {
    const writeOnly = await rootFields(w.tokens.writeOnly);
    expect(writeOnly.mutation).toContain('createPost');
    expect(writeOnly.query).toContain('posts');
    const res = await w.t.graphql('{ posts { data { uuid } } }', undefined, w.tokens.writeOnly);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});
