import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bulkProject, type BulkProject } from '../entries/bulk/helpers.ts';

const CREATE = `mutation($items: [PostBulkCreateItem!]!) {
  bulkCreatePosts(items: $items) { message data { uuid locale state title views publishedVersionNumber isDraftDirty author { name } createdAt } }
}`;
const UPDATE = `mutation($items: [PostBulkUpdateItem!]!) {
  bulkUpdatePosts(items: $items) { message data { uuid state title views code publishedVersionNumber } }
}`;
const DELETE = `mutation($uuids: [ID!]!, $force: Boolean) {
  bulkDeletePosts(uuids: $uuids, force: $force) { message count force }
}`;
const GENERIC_CREATE = `mutation($items: [BulkCreateEntryInput!]!) {
  bulkCreateEntries(collection: "posts", items: $items) { data { uuid } }
}`;
const GENERIC_UPDATE = `mutation($items: [BulkUpdateEntryInput!]!) {
  bulkUpdateEntries(collection: "posts", items: $items) { data { uuid } }
}`;

interface GqlError {
  message: string;
  path?: string[];
  extensions: Record<string, unknown>;
}
const errorOf = (res: { body: { errors?: GqlError[] } }) => res.body.errors?.[0];
const uuidsOf = (entries: Array<{ uuid: string }>) => entries.map((e) => e.uuid);

/** An outbox payload with what differs between two equal writes (ids, UUIDs, times) masked. */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, /^(id|uuid)$|_id$|_uuid$|_at$|At$/.test(k) ? typeof v : comparable(v)]),
    );
  }
  return value;
}

describe('typed bulk mutations per collection', () => {
  let t: TestApp;
  let b: BulkProject;
  let authorUuid: string;
  beforeAll(async () => {
    t = await startTestApp();
    b = await bulkProject(t);
    authorUuid = (await b.single('authors', { data: { name: 'Ann' }, state: 'published' })).uuid;
  });
  afterAll(() => t.close());

  const gql = (query: string, variables: Record<string, unknown>, headers = b.p.headers) => t.graphql(query, variables, headers);

  it('the typed schema introspects the bulk fields with typed item inputs and nullable roots', async () => {
    // One introspection field per request (the document limits allow one).
    const res = await gql('{ __schema { mutationType { fields { name type { kind name } args { name type { kind ofType { kind ofType { kind ofType { name } } } } } } } } }', {});
    expect(res.body.errors).toBeUndefined();
    const inputFieldsOf = async (name: string) => {
      const r = await gql(`{ __type(name: "${name}") { inputFields { name type { kind name ofType { name } } } } }`, {});
      expect(r.body.errors).toBeUndefined();
      return r.body.data.__type.inputFields;
    };
    const fields = res.body.data.__schema.mutationType.fields as Array<{ name: string; type: { kind: string; name: string }; args: Array<{ name: string; type: unknown }> }>;
    const byName = new Map(fields.map((f) => [f.name, f]));
    for (const name of ['bulkCreatePosts', 'bulkUpdatePosts', 'bulkDeletePosts', 'bulkCreateAuthors', 'bulkCreateSettings']) expect(byName.has(name)).toBe(true);
    expect(byName.get('bulkCreatePosts')!.type).toEqual({ kind: 'OBJECT', name: 'PostBulkPayload' });
    expect(byName.get('bulkDeletePosts')!.type).toEqual({ kind: 'OBJECT', name: 'BulkDeletePayload' });
    const itemsArg = byName.get('bulkCreatePosts')!.args.find((a) => a.name === 'items');
    expect(itemsArg?.type).toEqual({ kind: 'NON_NULL', ofType: { kind: 'LIST', ofType: { kind: 'NON_NULL', ofType: { name: 'PostBulkCreateItem' } } } });
    expect(byName.get('bulkDeletePosts')!.args.map((a) => a.name)).toEqual(['uuids', 'force']);
    const shape = (inputFields: Array<{ name: string; type: { kind: string; name: string | null; ofType: { name: string } | null } }>) =>
      Object.fromEntries(inputFields.map((f) => [f.name, f.type.name ?? `${f.type.ofType?.name}!`]));
    expect(shape(await inputFieldsOf('PostBulkCreateItem'))).toEqual({ data: 'PostInput!', locale: 'String', state: 'ContentState' });
    expect(shape(await inputFieldsOf('PostBulkUpdateItem'))).toEqual({ uuid: 'ID!', data: 'PostPatchInput!', locale: 'String', state: 'ContentState' });
  });

  it('creates N entries from typed inputs in order, publishing on create', async () => {
    const items = Array.from({ length: 5 }, (_, i) => ({
      data: { title: `T${i}`, views: i, author: authorUuid },
      ...(i === 4 ? { locale: 'de', state: 'published' } : {}),
    }));
    const before = await b.counts();
    const res = await gql(CREATE, { items });
    expect(res.body.errors).toBeUndefined();
    const out = res.body.data.bulkCreatePosts;
    expect(out.message).toBe('Bulk content created successfully.');
    expect(out.data).toHaveLength(5);
    expect(out.data[0]).toMatchObject({ locale: 'en', state: 'draft', title: 'T0', views: 0, publishedVersionNumber: null, isDraftDirty: true, author: { name: 'Ann' } });
    expect(out.data[4]).toMatchObject({ locale: 'de', state: 'published', title: 'T4', publishedVersionNumber: 1, isDraftDirty: false });
    expect(out.data[0].createdAt).toMatch(/^\d{4}-/);
    expect((await b.counts()).entries).toBe(before.entries + 5);
    const rest = await b.req('GET', `/api/posts/${out.data[4].uuid}?locale=de`);
    expect(rest.body.fields).toMatchObject({ title: 'T4', views: 4 });
  });

  it('updates N entries with patch inputs, publishing and unpublishing; deletes N by UUID', async () => {
    const made = await gql(CREATE, { items: [{ state: 'published', data: { title: 'U1' } }, { data: { title: 'U2' } }, { data: { title: 'U3' } }] });
    const [a, c, d] = uuidsOf(made.body.data.bulkCreatePosts.data);
    const res = await gql(UPDATE, {
      items: [
        { uuid: a, state: 'draft', data: { views: 2 } },
        { uuid: c, state: 'published', data: { code: 'C' } },
        { uuid: d, data: { title: 'U3!', views: null } },
      ],
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.bulkUpdatePosts).toMatchObject({
      message: 'Bulk content updated successfully.',
      data: [
        { uuid: a, title: 'U1', views: 2, publishedVersionNumber: null },
        { uuid: c, title: 'U2', code: 'C', publishedVersionNumber: 1 },
        { uuid: d, title: 'U3!', views: null, publishedVersionNumber: null },
      ],
    });

    const soft = await gql(DELETE, { uuids: [a, c, '00000000-0000-4000-8000-000000000000'] });
    expect(soft.body.data.bulkDeletePosts).toEqual({ message: 'Bulk content deleted successfully.', count: 2, force: false });
    expect((await b.row(a)).deletedAt).not.toBeNull();
    const hard = await gql(DELETE, { uuids: [a, c, d], force: true });
    expect(hard.body.data.bulkDeletePosts).toEqual({ message: 'Bulk content deleted successfully.', count: 3, force: true });
    const tooMany = errorOf(await gql(DELETE, { uuids: Array(101).fill(a) }));
    expect(tooMany?.extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: { uuids: ['The uuids field must not have more than 100 items.'] } });
  });

  it('a bad item answers VALIDATION_FAILED keyed items.N.data.<field> and writes nothing', async () => {
    const before = await b.counts();
    const res = await gql(CREATE, { items: [{ data: { title: 'fine' } }, { data: { views: 1 } }, { locale: 'zz', data: { title: 'x' } }] });
    const err = errorOf(res);
    expect(res.body.data).toEqual({ bulkCreatePosts: null });
    expect(err?.path).toEqual(['bulkCreatePosts']);
    expect(err?.extensions).toMatchObject({ code: 'VALIDATION_FAILED', status: 422 });
    expect(Object.keys(err?.extensions.errors as object).sort()).toEqual(['items.1.data.title', 'items.2.locale']);
    expect(await b.counts()).toEqual(before);

    const made = await gql(CREATE, { items: [{ data: { title: 'V1', code: 'dup' } }, { data: { title: 'V2' } }] });
    const [a, c] = uuidsOf(made.body.data.bulkCreatePosts.data);
    const mid = await b.counts();
    const bad = errorOf(await gql(UPDATE, { items: [{ uuid: a, data: { title: 'changed' } }, { uuid: c, data: { code: 'dup' } }] }));
    expect(bad?.extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: { 'items.1.data.code': [expect.any(String)] } });
    expect(await b.counts()).toEqual(mid);
    expect((await b.req('GET', `/api/posts/${a}?state=draft`)).body.fields.title).toBe('V1');

    const empty = errorOf(await gql(CREATE, { items: [] }));
    expect(empty?.extensions.errors).toEqual({ items: ['The items field must have at least 1 items.'] });
    const tooMany = errorOf(await gql(CREATE, { items: Array.from({ length: 51 }, () => ({ data: { title: 'x' } })) }));
    expect(tooMany?.extensions.errors).toEqual({ items: ['The items field must not have more than 50 items.'] });
    // A value of the wrong GraphQL type is refused before the operation runs.
    const typed = await gql(CREATE, { items: [{ data: { views: 'many' } }] });
    expect(typed.body.errors).toHaveLength(1);
    expect(await b.counts()).toEqual(mid);
  });

  it('writes the same outbox events as the generic bulk mutations', async () => {
    const createItems = [{ data: { title: 'E1', views: 1 } }, { state: 'published', data: { title: 'E2' } }];
    const typed = uuidsOf((await gql(CREATE, { items: createItems })).body.data.bulkCreatePosts.data);
    const generic = uuidsOf((await gql(GENERIC_CREATE, { items: createItems })).body.data.bulkCreateEntries.data);
    const updates = (u: string[]) => [
      { uuid: u[0], state: 'published', data: { views: 5 } },
      { uuid: u[1], state: 'draft', data: { title: 'E2!' } },
    ];
    expect((await gql(UPDATE, { items: updates(typed) })).body.errors).toBeUndefined();
    expect((await gql(GENERIC_UPDATE, { items: updates(generic) })).body.errors).toBeUndefined();

    const typedEvents = await b.events(typed);
    const genericEvents = await b.events(generic);
    expect(typedEvents.map((e) => e.event)).toEqual([
      'content.created',
      'content.created',
      'content.published',
      'content.updated',
      'content.published',
      'content.updated',
      'content.unpublished',
    ]);
    expect(typedEvents.map((e) => e.event)).toEqual(genericEvents.map((e) => e.event));
    expect(typedEvents.map((e) => comparable(e.payload))).toEqual(genericEvents.map((e) => comparable(e.payload)));
  });

  it('a token without the create ability is refused with FORBIDDEN', async () => {
    const readOnly = await b.p.tokenWith(['read']);
    const denied = errorOf(await gql(CREATE, { items: [{ data: { title: 'x' } }] }, readOnly));
    expect(denied?.extensions).toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('typed bulk rate limit', () => {
  let t: TestApp;
  let b: BulkProject;
  beforeAll(async () => {
    // 20 per minute gives the bulk bucket 2 points (a tenth), shared with REST and the generic mutations.
    t = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '20' } });
    b = await bulkProject(t);
  });
  afterAll(() => t.close());

  it('draws the bulk budget: 429 once spent, while single typed writes still work', async () => {
    const first = await t.graphql(CREATE, { items: [{ data: { title: 'r1' } }] }, b.p.headers);
    expect(first.body.errors).toBeUndefined();
    expect((await b.create('posts', { items: [{ data: { title: 'r2' } }] })).status).toBe(201);
    const spent = await t.graphql(DELETE, { uuids: [first.body.data.bulkCreatePosts.data[0].uuid] }, b.p.headers);
    // A nullable root: data is present, so GraphQL over HTTP answers 200; the 429 is in the extensions.
    expect(spent.body.data).toEqual({ bulkDeletePosts: null });
    expect(spent.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    const single = await t.graphql('mutation { createPost(data: { title: "single" }) { title } }', {}, b.p.headers);
    expect(single.body).toEqual({ data: { createPost: { title: 'single' } } });
  });
});
