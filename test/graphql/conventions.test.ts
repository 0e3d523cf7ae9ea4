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
      for (const f of fields) if (f.name !== 'data' && f.name !== 'pageInfo') expect(f.isDeprecated, `${page}.${f.name}`).toBe(true);
    }
    const data = await w.ok('{ entries(collection: "posts", perPage: 5) { pageInfo { total perPage hasNextPage } } assets { pageInfo { total } } }');
    expect(data.entries.pageInfo).toEqual({ total: 0, perPage: 5, hasNextPage: false });
    expect(data.assets.pageInfo.total).toBe(1);
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
    // The same state the REST resource carries (spec §2.1).
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
