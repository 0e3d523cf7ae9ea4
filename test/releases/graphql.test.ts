import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { World } from '../helpers/world.ts';
import { entry, releaseWorld } from './helpers.ts';

type Gql = { status: number; body: { data?: any; errors?: Array<{ message: string; extensions: Record<string, any> }> } };

/** Releases through GraphQL: the same operations, abilities and errors as REST, and typed previews. */
describe('releases (GraphQL)', () => {
  let w: World;
  const gql = (query: string, variables?: Record<string, unknown>, headers = w.p.headers) => w.t.graphql(query, variables, headers) as Promise<Gql>;
  const ok = async (query: string, variables?: Record<string, unknown>, headers = w.p.headers) => {
    const res = await gql(query, variables, headers);
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    return res.body.data;
  };
  beforeAll(async () => {
    w = await releaseWorld();
  });
  afterAll(() => w.close());

  const RELEASE = 'id title description status publishAt publishedAt errors items { id collection uuid action locale version }';

  it('creates, fills, publishes and lists releases; a failing release is all-or-nothing with items.<n> errors', async () => {
    const post = await entry(w, 'posts', { title: 'gql post' });
    const page = await entry(w, 'pages', { heading: 'gql page' }, 'published');
    const author = await entry(w, 'authors', { name: 'gql author' });
    const made = (await ok(`mutation { createRelease(title: "GraphQL", description: "d") { ${RELEASE} } }`)).createRelease;
    expect(made).toMatchObject({ title: 'GraphQL', description: 'd', status: 'OPEN', items: [] });
    const items = [
      { collection: 'posts', uuid: post, action: 'PUBLISH' },
      { collection: 'pages', uuid: page, action: 'UNPUBLISH' },
      { collection: 'authors', uuid: author, action: 'PUBLISH' },
    ];
    const filled = (await ok(`mutation($id: ID!, $items: [ReleaseItemInput!]!) { addReleaseItems(id: $id, items: $items) { ${RELEASE} } }`, { id: made.id, items })).addReleaseItems;
    expect(filled.items.map((i: { action: string }) => i.action)).toEqual(['PUBLISH', 'UNPUBLISH', 'PUBLISH']);

    const dup = await gql(`mutation($id: ID!, $items: [ReleaseItemInput!]!) { addReleaseItems(id: $id, items: $items) { id } }`, { id: made.id, items: items.slice(0, 1) });
    expect(dup.body.errors?.[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: { 'items.0.uuid': [expect.any(String)] } });

    // The author is trashed: the publish fails whole.
    await w.api('DELETE', `/api/authors/${author}`);
    const failed = await gql(`mutation($id: ID!) { publishRelease(id: $id) { id } }`, { id: made.id });
    expect(failed.body.errors?.[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: { 'items.2.uuid': [expect.any(String)] } });
    expect((await w.api('GET', `/api/pages/${page}`)).status).toBe(200);
    expect((await w.api('GET', `/api/posts/${post}`)).status).toBe(404);

    const withoutAuthor = (await ok(`mutation($id: ID!, $item: ID!) { removeReleaseItem(id: $id, itemId: $item) { ${RELEASE} } }`, { id: made.id, item: filled.items[2].id })).removeReleaseItem;
    expect(withoutAuthor.items).toHaveLength(2);
    const published = (await ok(`mutation($id: ID!) { publishRelease(id: $id) { ${RELEASE} } }`, { id: made.id })).publishRelease;
    expect(published).toMatchObject({ status: 'PUBLISHED', publishedAt: expect.any(String) });
    expect(published.items.map((i: { version: number | null }) => i.version)).toEqual([1, null]);
    expect((await w.api('GET', `/api/pages/${page}`)).status).toBe(404);

    const del = await gql(`mutation($id: ID!) { deleteRelease(id: $id) }`, { id: made.id });
    expect(del.body.errors?.[0].extensions.code).toBe('CONFLICT');
    const renamed = (await ok(`mutation($id: ID!) { updateRelease(id: $id, title: "Renamed") { title description } }`, { id: made.id })).updateRelease;
    expect(renamed).toEqual({ title: 'Renamed', description: 'd' });

    const list = (await ok(`{ releases(status: PUBLISHED, perPage: 5) { data { id status } pageInfo { total currentPage perPage } } }`)).releases;
    expect(list.data.map((r: { id: string }) => r.id)).toContain(made.id);
    expect(list.data.every((r: { status: string }) => r.status === 'PUBLISHED')).toBe(true);
    expect((await ok(`query($id: ID!) { release(id: $id) { id title } }`, { id: made.id })).release).toEqual({ id: made.id, title: 'Renamed' });
  });

  it('asks the same abilities as REST: read to look, update to change', async () => {
    const { reader, creator } = w.tokens;
    const made = (await ok('mutation { createRelease(title: "abilities") { id } }')).createRelease;
    expect((await ok('{ releases { data { id } } }', undefined, reader)).releases.data.length).toBeGreaterThan(0);
    expect((await ok(`query($id: ID!) { release(id: $id) { id } }`, { id: made.id }, reader)).release.id).toBe(made.id);
    for (const [mutation, vars] of [
      ['mutation { createRelease(title: "x") { id } }', {}],
      ['mutation($id: ID!) { updateRelease(id: $id, title: "x") { id } }', { id: made.id }],
      ['mutation($id: ID!) { deleteRelease(id: $id) }', { id: made.id }],
      ['mutation($id: ID!) { publishRelease(id: $id) { id } }', { id: made.id }],
      ['mutation($id: ID!) { addReleaseItems(id: $id, items: []) { id } }', { id: made.id }],
      ['mutation($id: ID!) { removeReleaseItem(id: $id, itemId: $id) { id } }', { id: made.id }],
    ] as const) {
      for (const token of [reader, creator]) {
        const res = await gql(mutation, vars, token);
        expect(res.body.errors?.[0].extensions.code, mutation).toBe('FORBIDDEN');
      }
    }
  });

  it('previews a release on the typed list and get, with where/sort/totals, uncached', async () => {
    const a = await entry(w, 'pages', { heading: 'preview a' });
    const b = await entry(w, 'pages', { heading: 'preview b' }, 'published');
    await w.api('PATCH', `/api/pages/${b}`, { data: { heading: 'preview b2' } });
    const c = await entry(w, 'pages', { heading: 'preview c' }, 'published');
    const made = (await ok('mutation { createRelease(title: "preview") { id } }')).createRelease;
    await ok(`mutation($id: ID!, $items: [ReleaseItemInput!]!) { addReleaseItems(id: $id, items: $items) { id } }`, {
      id: made.id,
      items: [
        { collection: 'pages', uuid: a, action: 'PUBLISH' },
        { collection: 'pages', uuid: b, action: 'PUBLISH' },
        { collection: 'pages', uuid: c, action: 'UNPUBLISH' },
      ],
    });
    const LIST = `query($r: ID) { pages(release: $r, where: { heading: { like: "preview" } }, sort: [heading_ASC]) { data { heading } pageInfo { total } } }`;
    const now = (await ok(LIST, { r: null })).pages;
    expect(now.data.map((p: { heading: string }) => p.heading)).toEqual(['preview b', 'preview c']);
    const future = (await ok(LIST, { r: made.id })).pages;
    expect(future.data.map((p: { heading: string }) => p.heading)).toEqual(['preview a', 'preview b2']);
    expect(future.pageInfo.total).toBe(2);
    // Asked again right after: still the future view (no cached answer of either read is served for the other).
    expect((await ok(LIST, { r: made.id })).pages.data).toEqual(future.data);
    expect((await ok(LIST, { r: null })).pages.data).toEqual(now.data);
    // state is ignored: a release view is its own view (a draft read would show b's draft "preview b2" and a).
    const DRAFT_LIST = `query($r: ID) { pages(release: $r, state: draft, where: { heading: { like: "preview" } }, sort: [heading_ASC]) { data { heading } } }`;
    expect((await ok(DRAFT_LIST, { r: made.id })).pages.data).toEqual(future.data);
    expect((await ok(DRAFT_LIST, { r: null })).pages.data.map((p: { heading: string }) => p.heading)).toEqual(['preview a', 'preview b2', 'preview c']);

    const GET = `query($u: ID!, $r: ID) { page(uuid: $u, release: $r) { heading } }`;
    expect((await ok(GET, { u: b, r: made.id })).page.heading).toBe('preview b2');
    expect((await ok(GET, { u: a, r: made.id })).page.heading).toBe('preview a');
    const gone = await gql(GET, { u: c, r: made.id });
    expect(gone.body.errors?.[0].extensions.code).toBe('NOT_FOUND');
    expect((await ok(GET, { u: c, r: null })).page.heading).toBe('preview c');
    const DRAFT_GET = `query($u: ID!, $r: ID) { page(uuid: $u, release: $r, state: draft) { heading } }`;
    expect((await gql(DRAFT_GET, { u: c, r: made.id })).body.errors?.[0].extensions.code).toBe('NOT_FOUND');
    expect((await ok(DRAFT_GET, { u: c, r: null })).page.heading).toBe('preview c');
    // Needs read, like a draft read.
    expect((await ok(LIST, { r: made.id }, w.tokens.reader)).pages.pageInfo.total).toBe(2);
  });

  it('leaves release operations and types out of a collection-limited token\'s typed schema; other tokens keep them', async () => {
    const INTROSPECT = `{ __schema { queryType { fields { name args { name } } } mutationType { fields { name } } subscriptionType { fields { name } } types { name } } }`;
    const surface = async (headers: Record<string, string>) => {
      const s = (await ok(INTROSPECT, undefined, headers)).__schema;
      const list = s.queryType.fields.find((f: { name: string }) => f.name === 'posts');
      return {
        fields: [...s.queryType.fields, ...(s.mutationType?.fields ?? []), ...s.subscriptionType.fields].map((f: { name: string }) => f.name).filter((n: string) => /release/i.test(n)).sort(),
        types: s.types.map((t: { name: string }) => t.name).filter((n: string) => /^Release/.test(n)).sort(),
        previewArg: list.args.some((a: { name: string }) => a.name === 'release'),
      };
    };
    const ALL = ['addReleaseItems', 'createRelease', 'deleteRelease', 'publishRelease', 'release', 'releaseChanged', 'releases', 'removeReleaseItem', 'scheduleRelease', 'unscheduleRelease', 'updateRelease'];
    const full = await surface(w.p.headers);
    expect(full.fields).toEqual(ALL);
    expect(full.types).toEqual(expect.arrayContaining(['Release', 'ReleasePage', 'ReleaseItemInput', 'ReleaseStatus']));

    const scoped = await w.api('POST', '/api/project/tokens', { name: 'posts only', abilities: ['read', 'update'], collections: ['posts'] });
    const preview = await w.api('POST', '/api/preview-tokens', { expires_in: 600, collections: ['posts'] });
    const bound = await w.api('POST', '/api/preview-tokens', { expires_in: 600, release: (await ok('mutation { createRelease(title: "bound") { id } }')).createRelease.id });
    const headersOf = (res: { body: { data: { token: string } } }) => ({ 'project-id': w.p.uuid, authorization: `Bearer ${res.body.data.token}` });
    for (const limited of [scoped, preview]) {
      const seen = await surface(headersOf(limited));
      expect(seen.fields).toEqual([]);
      expect(seen.types).toEqual([]);
      // A release preview is a read of the token's collections: the argument stays.
      expect(seen.previewArg).toBe(true);
      const used = await gql('{ releases { data { id } } }', undefined, headersOf(limited));
      expect(used.body.errors?.[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    }
    // Not limited to collections: a release-bound preview token and a reader still see them.
    expect((await surface(headersOf(bound))).fields).toEqual(['release', 'releaseChanged', 'releases']);
    // A reader's schema has the release reads only: the mutations need `update`.
    expect((await surface(w.tokens.reader)).fields).toEqual(['release', 'releaseChanged', 'releases']);
    // And the REST routes still refuse the limited token (403), as the operations do.
    expect((await w.api('GET', '/api/releases', undefined, headersOf(scoped))).status).toBe(403);
  });
});
