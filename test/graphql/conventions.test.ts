import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { typedWorld, type TypedWorld } from './typed-world.ts';

type Field = { name: string; isDeprecated: boolean; type: { kind: string; name: string | null; ofType: { name: string | null } | null } };

/** The conventions of docs/graphql.md ("Conventions"), checked on the schema a project is served. */
describe('GraphQL conventions: nullability, paging, state, timestamps, introspection (PGlite)', () => {
  let t: TestApp;
  let w: TypedWorld;
  beforeAll(async () => {
    t = await startTestApp({ embedded: true });
    w = await typedWorld(t, 'Conventions');
  });
  afterAll(() => t.close());

  const fieldsOf = async (type: string): Promise<Field[]> =>
    (await w.ok(`{ __type(name: "${type}") { fields(includeDeprecated: true) { name isDeprecated type { kind name ofType { name } } } } }`)).__type.fields;

  it('makes every root field nullable, core and typed, queries and mutations', async () => {
    for (const root of ['Query', 'Mutation']) {
      const nonNull = (await fieldsOf(root)).filter((f) => f.type.kind === 'NON_NULL').map((f) => f.name);
      expect(nonNull, root).toEqual([]);
    }
  });

  it('keeps the rest of the response when one root field fails', async () => {
    const res = await w.gql('{ project { name } entry(collection: "posts", uuid: "00000000-0000-4000-8000-000000000000") { uuid } }');
    expect(res.body.data.project.name).toBe('Conventions');
    expect(res.body.data.entry).toBeNull();
    expect(res.body.errors?.[0].extensions.code).toBe('NOT_FOUND');
  });

  it('pages every list with data + pageInfo; the flat paging fields are deprecated', async () => {
    for (const page of ['EntryPage', 'AssetPage', 'WebhookLogPage', 'PostPage']) {
      const fields = await fieldsOf(page);
      expect(fields.find((f) => f.name === 'pageInfo')?.type.ofType?.name, page).toBe('PageInfo');
      // The Relay `edges` sit beside `data`: the two styles of the one convention.
      for (const f of fields) if (!['data', 'edges', 'pageInfo'].includes(f.name)) expect(f.isDeprecated, `${page}.${f.name}`).toBe(true);
    }
    const data = await w.ok('{ entries(collection: "posts", perPage: 5) { pageInfo { total perPage hasNextPage } } assets { pageInfo { total } } }');
    expect(data.entries.pageInfo).toEqual({ total: 0, perPage: 5, hasNextPage: false });
    expect(data.assets.pageInfo.total).toBe(1);
  });

  it('offers every list as a Relay connection beside the page style: edges { cursor node }, pageInfo { hasNextPage endCursor }, first / after', async () => {
    for (const [page, edge] of [['EntryPage', 'EntryEdge'], ['AssetPage', 'AssetEdge'], ['WebhookLogPage', 'WebhookLogEdge'], ['ProjectUserPage', 'ProjectUserEdge'], ['PostPage', 'PostEdge'], ['EntryVersionConnection', 'EntryVersionEdge']]) {
      const fields = await fieldsOf(page);
      expect(fields.find((f) => f.name === 'edges')?.type.kind, page).toBe('NON_NULL');
      const edgeFields = await fieldsOf(edge);
      expect(edgeFields.map((f) => f.name).sort(), edge).toEqual(['cursor', 'node']);
      const info = fields.find((f) => f.name === 'pageInfo')!.type.ofType!.name!;
      expect((await fieldsOf(info)).map((f) => f.name), page).toEqual(expect.arrayContaining(['hasNextPage', 'hasPreviousPage', 'startCursor', 'endCursor']));
    }
    for (let i = 1; i <= 5; i++) await w.rest('POST', '/api/posts', { state: 'published', data: { title: `Relay ${i}` } });
    // Forward through the typed list two at a time, as a Relay client does, and compare with the pages.
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const d: any = await w.ok('query ($after: String) { posts(first: 2, after: $after, sort: [id_ASC]) { edges { cursor node { title } } pageInfo { hasNextPage endCursor } } }', { after });
      seen.push(...d.posts.edges.map((e: any) => e.node.title));
      expect(d.posts.pageInfo.endCursor).toBe(d.posts.edges.at(-1)?.cursor ?? null);
      if (!d.posts.pageInfo.hasNextPage) break;
      after = d.posts.pageInfo.endCursor;
    }
    const paged = await w.ok('{ posts(perPage: 100, sort: [id_ASC]) { data { title } } }');
    expect(seen).toEqual(paged.posts.data.map((e: any) => e.title));
    expect(seen.length).toBeGreaterThanOrEqual(5);
    // The core list takes the same cursors.
    const core = await w.ok('{ entries(collection: "posts", first: 2, sort: "id:asc") { edges { node { uuid } } pageInfo { endCursor hasPreviousPage } } }');
    expect(core.entries.pageInfo.hasPreviousPage).toBe(false);
    const next = await w.ok('query ($after: String) { entries(collection: "posts", first: 2, after: $after, sort: "id:asc") { edges { node { uuid } } pageInfo { hasPreviousPage } } }', { after: core.entries.pageInfo.endCursor });
    const page2 = await w.ok('{ entries(collection: "posts", page: 2, perPage: 2, sort: "id:asc") { data { uuid } } }');
    expect(next.entries.edges.map((e: any) => e.node.uuid)).toEqual(page2.entries.data.map((e: any) => e.uuid));
    expect(next.entries.pageInfo.hasPreviousPage).toBe(true);
    // A cursor taken with another page size, or garbage, is 422 naming `after`.
    for (const bad of [core.entries.pageInfo.endCursor, 'nope']) {
      const res = await w.gql('query ($after: String) { posts(first: 3, after: $after) { edges { cursor } } }', { after: bad });
      expect(res.body.errors?.[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', status: 422 });
      expect(Object.keys(res.body.errors?.[0].extensions.errors ?? {})).toEqual(['after']);
    }
  });

  it('refuses out-of-range perPage or page on the core entries query with VALIDATION_FAILED (422) naming the argument, as typed lists do', async () => {
    for (const [args, name] of [['perPage: 1000', 'perPage'], ['perPage: 0', 'perPage'], ['page: 0', 'page']] as const) {
      const core = await w.gql(`{ entries(collection: "posts", ${args}) { data { uuid } } }`);
      // GraphQL over HTTP: `data` is present (the nullable root is null), so the answer is 200 and
      // the refusal's class and status travel in the error's extensions.
      expect(core.status, args).toBe(200);
      expect(core.body.data).toEqual({ entries: null });
      expect(core.body.errors?.[0].extensions.code).toBe('VALIDATION_FAILED');
      expect(core.body.errors?.[0].extensions.status).toBe(422);
      expect(Object.keys(core.body.errors?.[0].extensions.errors ?? {})).toEqual([name]);
      const typed = await w.gql(`{ posts(${args}) { data { uuid } } }`);
      expect(typed.status).toBe(200);
      expect(typed.body.errors?.[0].extensions.status).toBe(422);
      expect(typed.body.errors?.[0].extensions.errors).toEqual(core.body.errors?.[0].extensions.errors);
    }
  });

  it('gives typed entries a state and the typed single query translationLocale', async () => {
    const en = await w.ok('mutation { createPost(data: { title: "Hello" }, state: published) { uuid state } }');
    // The same state the REST resource carries (docs/entries.md).
    expect(en.createPost.state).toBe((await w.rest('GET', `/api/posts/${en.createPost.uuid}`)).body.state);
    const de = await w.ok('mutation { createPost(data: { title: "Hallo" }, locale: "de", state: published) { uuid } }');
    const link = await w.rest('POST', `/api/posts/${en.createPost.uuid}/link-translation`, { translation_entry_uuid: de.createPost.uuid });
    expect(link.status).toBe(200);
    const read = await w.ok(`{ post(uuid: "${en.createPost.uuid}", translationLocale: "de") { uuid locale state title } }`);
    expect(read.post).toEqual({ uuid: de.createPost.uuid, locale: 'de', state: 'published', title: 'Hallo' });
    const draft = await w.ok(`{ post(uuid: "${en.createPost.uuid}", state: draft) { state } }`);
    expect(draft.post.state).toBe((await w.rest('GET', `/api/posts/${en.createPost.uuid}?state=draft`)).body.state);
    const unpublished = await w.ok('mutation { createPost(data: { title: "Draft only" }) { state } }');
    expect(unpublished.createPost.state).toBe('draft');
  });

  it('types timestamps as DateTime on core and typed entries, with the same ISO text on the wire', async () => {
    for (const type of ['Entry', 'Post', 'Asset', 'Webhook']) {
      const at = (await fieldsOf(type)).filter((f) => /At$/.test(f.name));
      expect(at.length, type).toBeGreaterThan(0);
      for (const f of at) expect(f.type.name ?? f.type.ofType?.name, `${type}.${f.name}`).toBe('DateTime');
    }
    const created = await w.ok('mutation { createPost(data: { title: "Times" }) { uuid createdAt } }');
    const core = await w.ok(`{ entry(collection: "posts", uuid: "${created.createPost.uuid}", state: "draft") { createdAt } }`);
    const rest = await w.rest('GET', `/api/posts/${created.createPost.uuid}?state=draft&timestamps=1`);
    expect(core.entry.createdAt).toBe(created.createPost.createdAt);
    expect(core.entry.createdAt).toBe(rest.body.created_at);
  });

  it('answers introspection with a mistyped token 401, GraphiQL placeholders the core schema', async () => {
    const introspect = '{ __schema { queryType { fields { name } } } }';
    const mistyped = await w.gql(introspect, undefined, { 'project-id': w.p.uuid, authorization: `${w.p.headers.authorization}x` });
    expect(mistyped.status).toBe(401);
    expect(mistyped.body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
    const unknownProject = await w.gql(introspect, undefined, { 'project-id': '00000000-0000-4000-8000-000000000000', authorization: w.p.headers.authorization });
    expect(unknownProject.status).toBe(400);
    const placeholder = await w.gql(introspect, undefined, { 'project-id': '<project uuid>', authorization: 'Bearer <token>' });
    expect(placeholder.status).toBe(200);
    expect(placeholder.body.data.__schema.queryType.fields.map((f: { name: string }) => f.name)).toContain('entries');
    const anonymous = await w.gql(introspect, undefined, {});
    expect(anonymous.status).toBe(200);
  });
});
