import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { typedWorld, type TypedWorld } from './typed-world.ts';

/**
 * REST ↔ GraphQL parity: each documented REST operation and its GraphQL counterpart (the typed
 * operation where one exists, else the core one) run on the same data and must give the same result
 * and the same error class (HTTP status ↔ `extensions.code`).
 */

const CODE: Record<number, string> = { 400: 'BAD_REQUEST', 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 422: 'VALIDATION_FAILED', 429: 'RATE_LIMITED' };

type Gql = { status: number; body: { data?: any; errors?: Array<{ message: string; extensions: Record<string, any> }> } };
type Rest = { status: number; body: any };

/** The error class of a REST answer (status) must be the one GraphQL reports in extensions.code/status. */
function sameClass(rest: Rest, gql: Gql, label: string): void {
  if (rest.status < 300) {
    expect(gql.body.errors, `${label}: REST ${rest.status}, GraphQL ${JSON.stringify(gql.body.errors)}`).toBeUndefined();
    return;
  }
  const err = gql.body.errors?.[0];
  expect(err?.extensions.code, `${label}: REST ${rest.status} ${JSON.stringify(rest.body)}`).toBe(CODE[rest.status]);
  expect(err?.extensions.status, label).toBe(rest.status);
  expect(err?.message, label).toBe(rest.body.message);
  if (rest.body.errors) expect(err?.extensions.errors, label).toEqual(rest.body.errors);
}

/** The comparable part of an entry: REST resource or typed GraphQL object. */
const fromRest = (e: any) => ({ uuid: e.uuid, locale: e.locale, publishedAt: e.published_at, version: e.published_version_number, dirty: e.is_draft_dirty, title: e.fields.title, views: e.fields.views, tags: e.fields.tags, author: e.fields.author?.uuid ?? null });
const fromGql = (e: any) => ({ uuid: e.uuid, locale: e.locale, publishedAt: e.publishedAt, version: e.publishedVersionNumber, dirty: e.isDraftDirty, title: e.title, views: e.views, tags: e.tags, author: e.author?.uuid ?? null });
const ENTRY = 'uuid locale publishedAt publishedVersionNumber isDraftDirty title views tags author { uuid }';

describe('REST and GraphQL parity (PostgreSQL)', () => {
  let t: TestApp;
  let w: TypedWorld;
  let author: string;
  let post: string;
  let readOnly: Record<string, string>;
  const missing = '00000000-0000-4000-8000-000000000000';

  beforeAll(async () => {
    t = await startTestApp({ env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    w = await typedWorld(t, 'Parity');
    author = (await w.rest('POST', '/api/authors', { data: { name: 'Ann' }, state: 'published' })).body.uuid;
    post = (await w.rest('POST', '/api/posts', { data: { title: 'First', views: 3, tags: ['x'], author }, state: 'published' })).body.uuid;
    readOnly = await w.p.tokenWith(['read']);
  });
  afterAll(() => t.close());

  const badToken = () => ({ 'project-id': w.p.uuid, authorization: 'Bearer nope' });
  const noProject = () => ({ authorization: w.p.headers.authorization });

  it('get entry: same entry, published and draft; same 400/401/403/404', async () => {
    for (const state of ['published', 'draft'] as const) {
      const rest = await w.rest('GET', `/api/posts/${post}?state=${state}`);
      const gql = await w.gql(`query($u: ID!, $s: ContentState) { post(uuid: $u, state: $s) { ${ENTRY} } }`, { u: post, s: state });
      sameClass(rest, gql, `get ${state}`);
      expect(fromGql(gql.body.data.post)).toEqual(fromRest(rest.body));
    }
    const q = 'query($u: ID!) { post(uuid: $u) { uuid } }';
    for (const [label, url, headers, vars] of [
      ['404', `/api/posts/${missing}`, w.p.headers, { u: missing }],
      ['404 malformed', '/api/posts/not-a-uuid', w.p.headers, { u: 'not-a-uuid' }],
      ['401', `/api/posts/${post}`, badToken(), { u: post }],
      ['400', `/api/posts/${post}`, noProject(), { u: post }],
      ['403', `/api/posts/${post}`, await w.p.tokenWith(['create']), { u: post }],
    ] as const) {
      sameClass(await w.rest('GET', url, undefined, headers), await w.gql(q, vars, headers), `get ${label}`);
    }
  });

  it('list entries: same entries in the same order, same totals, same 422 for a bad filter', async () => {
    await w.rest('POST', '/api/posts', { data: { title: 'Second', views: 30 }, state: 'published' });
    await w.rest('POST', '/api/posts', { data: { title: 'Third', views: 300 } });
    for (const state of ['published', 'draft'] as const) {
      const rest = await w.rest('GET', `/api/posts?state=${state}&where[views][gte]=3&sort=views:desc&paginate=2&page=1`);
      const gql = await w.gql(
        `query($s: ContentState) { posts(state: $s, where: { views: { gte: 3 } }, sort: [views_DESC], perPage: 2, page: 1) { data { ${ENTRY} } pageInfo { total currentPage perPage lastPage } } }`,
        { s: state },
      );
      sameClass(rest, gql, `list ${state}`);
      expect(gql.body.data.posts.data.map(fromGql)).toEqual(rest.body.data.map(fromRest));
      expect(gql.body.data.posts.pageInfo).toEqual({ total: rest.body.meta.total, currentPage: rest.body.meta.current_page, perPage: rest.body.meta.per_page, lastPage: rest.body.meta.last_page });
    }
    const rest = await w.rest('GET', '/api/posts?where[views][gte]=abc');
    const gql = await w.gql('{ posts(where: { title: { between: ["a"] } }) { data { uuid } } }');
    expect(rest.status).toBe(422);
    expect(gql.body.errors?.[0].extensions.code).toBe('VALIDATION_FAILED');
    sameClass(await w.rest('GET', '/api/posts', undefined, badToken()), await w.gql('{ posts { data { uuid } } }', undefined, badToken()), 'list 401');
    sameClass(await w.rest('GET', '/api/nope'), await w.gql('{ entries(collection: "nope") { total } }'), 'list 404 collection');
  });

  it('create entry: same stored entry from the same data; same 422 field map, same 403', async () => {
    const data = { title: 'Made', views: 7, tags: ['a', 'b'], author };
    const rest = await w.rest('POST', '/api/posts', { data });
    const gql = await w.gql(`mutation($d: PostInput!) { createPost(data: $d) { ${ENTRY} } }`, { d: data });
    expect(rest.status).toBe(201);
    sameClass(rest, gql, 'create');
    const a = fromRest((await w.rest('GET', `/api/posts/${rest.body.uuid}?state=draft`)).body);
    const b = fromRest((await w.rest('GET', `/api/posts/${gql.body.data.createPost.uuid}?state=draft`)).body);
    expect({ ...b, uuid: a.uuid }).toEqual(a);
    expect(fromGql(gql.body.data.createPost)).toEqual({ ...b, publishedAt: null });

    const restInvalid = await w.rest('POST', '/api/posts', { data: { title: '', author: missing, tags: ['ok'] } });
    const gqlInvalid = await w.gql('mutation($d: PostInput!) { createPost(data: $d) { uuid } }', { d: { title: '', author: missing, tags: ['ok'] } });
    sameClass(restInvalid, gqlInvalid, 'create 422 same data');
    sameClass(await w.rest('POST', '/api/posts', { data }, readOnly), await w.gql('mutation($d: PostInput!) { createPost(data: $d) { uuid } }', { d: data }, readOnly), 'create 403');
    sameClass(await w.rest('POST', '/api/posts', { data: { title: 'x' }, locale: 'fr' }), await w.gql('mutation { createPost(data: { title: "x" }, locale: "fr") { uuid } }'), 'create 422 locale');
  });

  it('update entry (PATCH): same result; same 404 and 422', async () => {
    const a = (await w.rest('POST', '/api/posts', { data: { title: 'A', views: 1, tags: ['t'] } })).body.uuid;
    const b = (await w.rest('POST', '/api/posts', { data: { title: 'A', views: 1, tags: ['t'] } })).body.uuid;
    const rest = await w.rest('PATCH', `/api/posts/${a}`, { data: { views: 2, tags: null } });
    const gql = await w.gql(`mutation($u: ID!) { updatePost(uuid: $u, data: { views: 2, tags: null }) { ${ENTRY} } }`, { u: b });
    sameClass(rest, gql, 'update');
    expect({ ...fromGql(gql.body.data.updatePost), uuid: a }).toEqual(fromRest(rest.body));
    sameClass(await w.rest('PATCH', `/api/posts/${missing}`, { data: { views: 1 } }), await w.gql('mutation($u: ID!) { updatePost(uuid: $u, data: { views: 1 }) { uuid } }', { u: missing }), 'update 404');
    sameClass(await w.rest('PATCH', `/api/posts/${a}`, { data: { title: null } }), await w.gql('mutation($u: ID!) { updatePost(uuid: $u, data: { title: null }) { uuid } }', { u: b }), 'update 422');
    sameClass(await w.rest('PATCH', `/api/posts/${a}`, { data: { views: 1 } }, readOnly), await w.gql('mutation($u: ID!) { updatePost(uuid: $u, data: { views: 1 }) { uuid } }', { u: b }, readOnly), 'update 403');
  });

  it('delete entry: same message, then both 404; same 403', async () => {
    const a = (await w.rest('POST', '/api/posts', { data: { title: 'Del' } })).body.uuid;
    const b = (await w.rest('POST', '/api/posts', { data: { title: 'Del' } })).body.uuid;
    sameClass(await w.rest('DELETE', `/api/posts/${a}`, undefined, readOnly), await w.gql('mutation($u: ID!) { deletePost(uuid: $u) { message } }', { u: b }, readOnly), 'delete 403');
    const rest = await w.rest('DELETE', `/api/posts/${a}`);
    const gql = await w.gql('mutation($u: ID!) { deletePost(uuid: $u) { message } }', { u: b });
    sameClass(rest, gql, 'delete');
    expect(gql.body.data.deletePost.message).toBe(rest.body.message);
    sameClass(await w.rest('DELETE', `/api/posts/${a}`), await w.gql('mutation($u: ID!) { deletePost(uuid: $u) { message } }', { u: b }), 'delete again 404');
  });

  it('publish and unpublish: same version numbers and published reads; same 404/403', async () => {
    const a = (await w.rest('POST', '/api/posts', { data: { title: 'Pub' } })).body.uuid;
    const b = (await w.rest('POST', '/api/posts', { data: { title: 'Pub' } })).body.uuid;
    const rest = await w.rest('POST', `/api/posts/${a}/publish`);
    const gql = await w.gql(`mutation($u: ID!) { publishPost(uuid: $u) { ${ENTRY} } }`, { u: b });
    sameClass(rest, gql, 'publish');
    expect(rest.body.version_number).toBe(1);
    expect(gql.body.data.publishPost.publishedVersionNumber).toBe(rest.body.version_number);
    expect({ ...fromGql(gql.body.data.publishPost), uuid: a, publishedAt: null }).toEqual({ ...fromRest(rest.body.entry), publishedAt: null });

    sameClass(await w.rest('POST', `/api/posts/${a}/unpublish`), await w.gql('mutation($u: ID!) { unpublishPost(uuid: $u) { uuid } }', { u: b }), 'unpublish');
    sameClass(await w.rest('GET', `/api/posts/${a}`), await w.gql('query($u: ID!) { post(uuid: $u) { uuid } }', { u: b }), 'published read after unpublish 404');
    sameClass(await w.rest('POST', `/api/posts/${missing}/publish`), await w.gql('mutation($u: ID!) { publishPost(uuid: $u) { uuid } }', { u: missing }), 'publish 404');
    sameClass(await w.rest('POST', `/api/posts/${a}/publish`, undefined, readOnly), await w.gql('mutation($u: ID!) { publishPost(uuid: $u) { uuid } }', { u: b }, readOnly), 'publish 403');
  });

  it('versions: same list, same detail snapshot, same revert result, same label update; same 404/422', async () => {
    const a = (await w.rest('POST', '/api/posts', { data: { title: 'V1', views: 1 }, state: 'published' })).body.uuid;
    await w.rest('PATCH', `/api/posts/${a}`, { data: { title: 'V2' } });
    await w.rest('POST', `/api/posts/${a}/publish`);

    const list = await w.rest('GET', `/api/posts/${a}/versions`);
    const gqlList = await w.gql('query($u: ID!) { post(uuid: $u) { versions { nodes { uuid versionNumber label isCurrentPublished } } } }', { u: a });
    sameClass(list, gqlList, 'versions list');
    expect(gqlList.body.data.post.versions.nodes).toEqual(list.body.data.map((v: any) => ({ uuid: v.uuid, versionNumber: v.version_number, label: v.label, isCurrentPublished: v.is_current_published })));

    const detail = await w.rest('GET', `/api/posts/${a}/versions/1`);
    const gqlDetail = await w.gql('query($u: ID!) { post(uuid: $u) { version(number: 1) { versionNumber snapshot { fields meta { locale } } } } }', { u: a });
    sameClass(detail, gqlDetail, 'version detail');
    expect(gqlDetail.body.data.post.version.snapshot).toEqual({ fields: detail.body.snapshot.fields, meta: { locale: detail.body.snapshot.meta.locale } });
    // A version that does not exist: REST 404; GraphQL's `version(number)` is a nullable field of the entry (null, no error).
    expect((await w.rest('GET', `/api/posts/${a}/versions/99`)).status).toBe(404);
    expect((await w.gql('query($u: ID!) { post(uuid: $u) { version(number: 99) { uuid } } }', { u: a })).body).toEqual({ data: { post: { version: null } } });
    sameClass(await w.rest('GET', `/api/posts/${missing}/versions`), await w.gql('query($u: ID!) { post(uuid: $u, state: draft) { versions { nodes { uuid } } } }', { u: missing }), 'versions of a missing entry 404');

    const label = await w.rest('PATCH', `/api/posts/${a}/versions/1`, { label: 'first' });
    const gqlLabel = await w.gql('mutation($u: ID!) { updateEntryVersion(collection: "posts", uuid: $u, version: 2, label: "second") { versionNumber label } }', { u: a });
    sameClass(label, gqlLabel, 'label');
    expect(label.body.label).toBe('first');
    expect(gqlLabel.body.data.updateEntryVersion).toEqual({ versionNumber: 2, label: 'second' });
    sameClass(
      await w.rest('PATCH', `/api/posts/${a}/versions/1`, { label: 'x'.repeat(256) }),
      await w.gql('mutation($u: ID!, $l: String) { updateEntryVersion(collection: "posts", uuid: $u, version: 1, label: $l) { label } }', { u: a, l: 'x'.repeat(256) }),
      'label 422',
    );

    const b = (await w.rest('POST', '/api/posts', { data: { title: 'V1', views: 1 }, state: 'published' })).body.uuid;
    await w.rest('PATCH', `/api/posts/${b}`, { data: { title: 'V2' } });
    await w.rest('POST', `/api/posts/${b}/publish`);
    const revert = await w.rest('POST', `/api/posts/${a}/versions/1/revert`);
    const gqlRevert = await w.gql(`mutation($u: ID!) { revertPost(uuid: $u, version: 1) { ${ENTRY} } }`, { u: b });
    sameClass(revert, gqlRevert, 'revert');
    expect(revert.body.version.version_number).toBe(3);
    expect({ ...fromGql(gqlRevert.body.data.revertPost), uuid: a, publishedAt: null }).toEqual({ ...fromRest(revert.body.entry), publishedAt: null });
    sameClass(await w.rest('POST', `/api/posts/${a}/versions/42/revert`), await w.gql('mutation($u: ID!) { revertPost(uuid: $u, version: 42) { uuid } }', { u: b }), 'revert 404');
  });

  it('collections: same list and detail; same 404; same 403 for admin operations', async () => {
    const rest = await w.rest('GET', '/api/collections');
    const gql = await w.gql('{ collections { slug name isSingleton } }');
    sameClass(rest, gql, 'collections');
    expect(gql.body.data.collections).toEqual(rest.body.map((c: any) => ({ slug: c.slug, name: c.name, isSingleton: c.is_singleton })));
    sameClass(await w.rest('GET', '/api/collections/nope'), await w.gql('{ collection(slug: "nope") { slug } }'), 'collection 404');
    sameClass(
      await w.rest('POST', '/api/collections', { name: 'X', slug: 'x-things' }, readOnly),
      await w.gql('mutation { createCollection(input: { name: "X", slug: "x-things" }) { slug } }', undefined, readOnly),
      'create collection 403',
    );
  });

  it('webhooks: same list; same 404 and 403', async () => {
    const created = await w.rest('POST', '/api/webhooks', { name: 'Hook', url: 'http://127.0.0.1:9/hook', events: ['content.published'], sources: ['api'] });
    expect(created.status).toBe(201);
    const rest = await w.rest('GET', '/api/webhooks');
    const gql = await w.gql('{ webhooks { uuid name url events sources } }');
    sameClass(rest, gql, 'webhooks');
    expect(gql.body.data.webhooks).toEqual(rest.body.map((h: any) => ({ uuid: h.uuid, name: h.name, url: h.url, events: h.events, sources: h.sources })));
    sameClass(await w.rest('GET', `/api/webhooks/${missing}`), await w.gql('query($u: String!) { webhook(uuid: $u) { uuid } }', { u: missing }), 'webhook 404');
    sameClass(await w.rest('GET', '/api/webhooks', undefined, readOnly), await w.gql('{ webhooks { uuid } }', undefined, readOnly), 'webhooks 403');
  });
});

describe('REST and GraphQL share the rate limit and its 429 (PGlite)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ embedded: true, env: { RATE_LIMIT_PER_MINUTE: '3' } });
  });
  afterAll(() => t.close());

  it('answers 429 / RATE_LIMITED with the same message once the token spent its budget on either surface', async () => {
    const p = await t.project();
    const rest = await p.tokenWith(['*']);
    const gql = await p.tokenWith(['*']);
    for (let i = 0; i < 3; i++) {
      expect((await t.request({ method: 'GET', url: '/api', headers: rest })).status).toBe(200);
      expect((await t.graphql('{ project { uuid } }', undefined, gql)).body.errors).toBeUndefined();
    }
    const restLimited = await t.request({ method: 'GET', url: '/api', headers: rest });
    const gqlLimited = await t.graphql('{ project { uuid } }', undefined, gql);
    sameClass(restLimited, gqlLimited, '429');
    expect(restLimited.headers['retry-after']).toBeDefined();
    // One budget per token, whichever surface spends it.
    expect((await t.graphql('{ project { uuid } }', undefined, rest)).body.errors?.[0].extensions.code).toBe('RATE_LIMITED');
  });
});
