import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { typedWorld, type TypedWorld } from './typed-world.ts';

const POST_FIELDS = `uuid locale title body views status tags publishedAt isDraftDirty
  author { name company { name } } coverImage { uuid url } seo { metaTitle } when { start end }`;

describe('typed GraphQL schema per project (PostgreSQL)', () => {
  let t: TestApp;
  let w: TypedWorld;
  let companyUuid: string;
  let authorUuid: string;

  beforeAll(async () => {
    t = await startTestApp();
    w = await typedWorld(t);
    const company = await w.ok('mutation { createCompany(data: { name: "Acme" }, state: published) { uuid } }');
    companyUuid = company.createCompany.uuid;
    const author = await w.ok('mutation($c: ID) { createAuthor(data: { name: "Ann", company: $c }, state: published) { uuid company { name } } }', { c: companyUuid });
    authorUuid = author.createAuthor.uuid;
    expect(author.createAuthor.company).toEqual({ name: 'Acme' });
  });
  afterAll(() => t.close());

  it('creates an entry from a typed input and returns every kind of field typed', async () => {
    const data = await w.ok(
      `mutation($data: PostInput!) { createPost(data: $data) { ${POST_FIELDS} } }`,
      {
        data: {
          title: 'Hello',
          body: '# Hi',
          views: 12,
          status: 'IN_PROGRESS',
          tags: ['a', 'b'],
          author: authorUuid,
          coverImage: [w.assetUuid],
          seo: { metaTitle: 'Meta' },
          when: { start: '2026-01-01', end: '2026-01-31' },
          secret: 'hunter22',
          internal: 'x',
        },
      },
    );
    expect(data.createPost).toMatchObject({
      locale: 'en',
      title: 'Hello',
      body: '# Hi',
      views: 12,
      status: 'IN_PROGRESS',
      tags: ['a', 'b'],
      publishedAt: null,
      author: { name: 'Ann', company: { name: 'Acme' } },
      coverImage: [{ uuid: w.assetUuid }],
      seo: { metaTitle: 'Meta' },
      when: { start: '2026-01-01', end: '2026-01-31' },
    });
    // The stored value is the enumeration's own string, as REST shows it.
    const rest = await w.rest('GET', `/api/posts/${data.createPost.uuid}?state=draft`);
    expect(rest.body.fields.status).toBe('in-progress');
    expect(rest.body.fields).not.toHaveProperty('secret');
  });

  it('keeps write-only fields out of the output types', async () => {
    const res = await w.gql('{ posts { data { secret } } }');
    expect(res.body.errors?.[0].message).toMatch(/Cannot query field "secret"/);
    const hidden = await w.gql('{ posts { data { internal } } }');
    expect(hidden.body.errors?.[0].message).toMatch(/Cannot query field "internal"/);
  });

  it('answers 422 with the same field map as REST when validation fails', async () => {
    const res = await w.gql('mutation { createPost(data: { views: 3 }) { uuid } }');
    expect(res.body.errors?.[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', status: 422 });
    const rest = await w.rest('POST', '/api/posts', { data: { views: 3 } });
    expect(rest.status).toBe(422);
    expect(res.body.errors?.[0].extensions.errors).toEqual(rest.body.errors);
  });

  it('serves published reads only after publishing; drafts on request', async () => {
    const created = await w.ok('mutation { createPost(data: { title: "Draft only" }) { uuid } }');
    const uuid = created.createPost.uuid;
    const missing = await w.gql('query($u: ID!) { post(uuid: $u) { title } }', { u: uuid });
    expect(missing.body.errors?.[0].extensions).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect((await w.ok('query($u: ID!) { post(uuid: $u, state: draft) { title } }', { u: uuid })).post.title).toBe('Draft only');

    const published = await w.ok('mutation($u: ID!) { publishPost(uuid: $u) { title publishedVersionNumber } }', { u: uuid });
    expect(published.publishPost).toEqual({ title: 'Draft only', publishedVersionNumber: 1 });
    await w.ok('mutation($u: ID!) { updatePost(uuid: $u, data: { title: "Edited" }) { title isDraftDirty } }', { u: uuid });
    const both = await w.ok('query($u: ID!) { pub: post(uuid: $u) { title } draft: post(uuid: $u, state: draft) { title isDraftDirty } }', { u: uuid });
    expect(both).toEqual({ pub: { title: 'Draft only' }, draft: { title: 'Edited', isDraftDirty: true } });

    const versions = await w.ok('query($u: ID!) { post(uuid: $u) { versions { nodes { versionNumber isCurrentPublished } } } }', { u: uuid });
    expect(versions.post.versions.nodes).toEqual([{ versionNumber: 1, isCurrentPublished: true }]);

    await w.ok('mutation($u: ID!) { unpublishPost(uuid: $u) { uuid } }', { u: uuid });
    const gone = await w.gql('query($u: ID!) { post(uuid: $u) { title } }', { u: uuid });
    expect(gone.body.errors?.[0].extensions.code).toBe('NOT_FOUND');
    const deleted = await w.ok('mutation($u: ID!) { deletePost(uuid: $u) { uuid message } }', { u: uuid });
    expect(deleted.deletePost).toEqual({ uuid, message: 'Content deleted.' });
    const draftGone = await w.gql('query($u: ID!) { post(uuid: $u, state: draft) { title } }', { u: uuid });
    expect(draftGone.body.errors?.[0].extensions.code).toBe('NOT_FOUND');
  });

  it('filters with the typed where (operators, enums, relation nesting, or), sorts and pages', async () => {
    for (const [title, views, status] of [['Alpha news', 5, 'DONE'], ['Beta news', 50, 'DONE'], ['Gamma', 500, 'IN_PROGRESS']] as const) {
      await w.ok('mutation($d: PostInput!) { createPost(data: $d, state: published) { uuid } }', { d: { title, views, status, author: authorUuid } });
    }
    const q = `query($w: PostWhere, $s: [PostSort!], $pp: Int, $p: Int) {
      posts(where: $w, sort: $s, perPage: $pp, page: $p) { data { title } pageInfo { total currentPage perPage lastPage hasNextPage } } }`;
    const titles = async (vars: Record<string, unknown>) => (await w.ok(q, vars)).posts.data.map((p: { title: string }) => p.title);

    expect(await titles({ w: { title: { like: 'news' } }, s: ['views_DESC'] })).toEqual(['Beta news', 'Alpha news']);
    expect(await titles({ w: { views: { gte: 50 }, status: { eq: 'DONE' } } })).toEqual(['Beta news']);
    expect(await titles({ w: { or: [{ views: { lt: 10 } }, { status: { in: ['IN_PROGRESS'] } }] }, s: ['title_ASC'] })).toEqual(['Alpha news', 'Gamma']);
    expect(await titles({ w: { author: { where: { name: { eq: 'Ann' } } }, views: { between: [1, 100] } }, s: ['views_ASC'] })).toEqual(['Alpha news', 'Beta news']);
    expect(await titles({ w: { author: { where: { name: { eq: 'Nobody' } } } } })).toEqual([]);
    // A frontend's first guess, the related entry's fields written directly, as REST's where[author][name]:
    expect(await titles({ w: { author: { name: { eq: 'Ann' } }, views: { between: [1, 100] } }, s: ['views_ASC'] })).toEqual(['Alpha news', 'Beta news']);
    expect(await titles({ w: { author: { name: { eq: 'Nobody' } } } })).toEqual([]);
    // With reference operators beside them, and the same field directly and under `where`: both hold.
    expect(await titles({ w: { author: { notNull: true, name: { like: 'an' } } }, s: ['views_ASC'] })).toEqual(['Alpha news', 'Beta news', 'Gamma']);
    expect(await titles({ w: { author: { name: { like: 'an' }, where: { name: { eq: 'Nobody' } } } } })).toEqual([]);
    expect(await titles({ w: { author: { name: { like: 'an' }, where: { name: { eq: 'Ann' } } } }, s: ['views_ASC'] })).toEqual(['Alpha news', 'Beta news', 'Gamma']);

    const page = await w.ok(q, { w: { title: { like: 'a' } }, s: ['views_ASC'], pp: 2, p: 2 });
    expect(page.posts.pageInfo).toMatchObject({ currentPage: 2, perPage: 2, lastPage: Math.ceil(page.posts.pageInfo.total / 2) });

    // The same filter over REST selects the same entries.
    const rest = await w.rest('GET', '/api/posts?where[title][like]=news&sort=views:DESC');
    expect(rest.body.map((e: { fields: { title: string } }) => e.fields.title)).toEqual(['Beta news', 'Alpha news']);
  });

  it('reports filter problems as 422 under the same keys as REST', async () => {
    const res = await w.gql('{ posts(where: { author: { where: { company: { where: { name: { eq: "x" } } } } } }) { data { uuid } } }');
    expect(res.body.errors?.[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(Object.keys(res.body.errors?.[0].extensions.errors ?? {})[0]).toMatch(/^where\.author/);
  });

  it('rejects out-of-range paging with a 422 naming the argument', async () => {
    const res = await w.gql('{ posts(perPage: 101) { data { uuid } } }');
    expect(res.body.errors?.[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: { perPage: [expect.stringMatching(/100/)] } });
    const zero = await w.gql('{ posts(page: 0) { data { uuid } } }');
    expect(zero.body.errors?.[0].extensions.errors).toHaveProperty('page');
  });

  it('serves a singleton as a single-object query', async () => {
    const missing = await w.gql('{ homepage { headline } }');
    expect(missing.body.errors?.[0].extensions.code).toBe('NOT_FOUND');
    await w.ok('mutation { createHomepage(data: { headline: "Welcome" }, state: published) { uuid } }');
    expect((await w.ok('{ homepage { headline locale } }')).homepage).toEqual({ headline: 'Welcome', locale: 'en' });
    const de = await w.gql('{ homepage(locale: "de") { headline } }');
    expect(de.body.errors?.[0].extensions.code).toBe('NOT_FOUND');
  });

  it('keeps the core operations beside the typed ones', async () => {
    const data = await w.ok('{ project { uuid } entries(collection: "posts", perPage: 1) { total } }');
    expect(data.project.uuid).toBe(w.p.uuid);
    expect(data.entries.total).toBeGreaterThan(0);
  });

  it('picks up a collection or field change on the next request (schema_revision)', async () => {
    const before = await w.gql('{ posts { data { subtitle } } }');
    expect(before.body.errors?.[0].message).toMatch(/Cannot query field "subtitle"/);
    const added = await w.rest('POST', '/api/collections/posts/fields', { type: 'text', label: 'Subtitle', name: 'subtitle' });
    expect(added.status).toBe(201);
    const after = await w.gql('{ posts { data { subtitle } } }');
    expect(after.body.errors).toBeUndefined();
    const created = await w.rest('POST', '/api/collections', { name: 'Events', slug: 'events', fields: [{ type: 'text', label: 'Name', name: 'name' }] });
    expect(created.status).toBe(201);
    expect((await w.ok('{ events { pageInfo { total } } }')).events.pageInfo.total).toBe(0);
  });

  it('authenticates before choosing the schema: 400/401 like REST, introspection falls back to the core schema', async () => {
    const noProject = await w.gql('{ posts { data { uuid } } }', undefined, { authorization: w.p.headers.authorization });
    expect(noProject.status).toBe(400);
    const badToken = await w.gql('{ posts { data { uuid } } }', undefined, { 'project-id': w.p.uuid, authorization: 'Bearer nope' });
    expect(badToken.status).toBe(401);
    expect(badToken.body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
    const placeholder = await w.gql('{ __schema { queryType { fields { name } } } }', undefined, { 'project-id': '<project uuid>', authorization: 'Bearer <token>' });
    expect(placeholder.status).toBe(200);
    const names = placeholder.body.data.__schema.queryType.fields.map((f: { name: string }) => f.name);
    expect(names).toContain('project');
    expect(names).not.toContain('posts');
    const typed = await w.ok('{ __schema { queryType { fields { name } } } }');
    expect(typed.__schema.queryType.fields.map((f: { name: string }) => f.name)).toEqual(expect.arrayContaining(['posts', 'post', 'project', 'homepage']));
  });

  it('gives each project its own types', async () => {
    const other = await t.project({ name: 'Other' });
    const res = await t.graphql('{ posts { data { uuid } } }', undefined, other.headers);
    expect(res.body.errors[0].message).toMatch(/Cannot query field "posts"/);
  });
});
