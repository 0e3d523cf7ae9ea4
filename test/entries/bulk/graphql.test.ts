import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { bulkProject, type BulkProject } from './helpers.ts';

const CREATE = `mutation($c: String!, $items: [BulkCreateEntryInput!]!) {
  bulkCreateEntries(collection: $c, items: $items) { message data { uuid locale state publishedVersionNumber isDraftDirty fields createdAt } }
}`;
const UPDATE = `mutation($c: String!, $items: [BulkUpdateEntryInput!]!) {
  bulkUpdateEntries(collection: $c, items: $items) { message data { uuid state publishedVersionNumber fields } }
}`;
const DELETE = `mutation($c: String!, $uuids: [String!]!, $force: Boolean) {
  bulkDeleteEntries(collection: $c, uuids: $uuids, force: $force) { message count force }
}`;

describe('bulk GraphQL mutations', () => {
  let t: TestApp;
  let b: BulkProject;
  beforeAll(async () => {
    t = await startTestApp();
    b = await bulkProject(t);
  });
  afterAll(() => t.close());

  const gql = (query: string, variables: Record<string, unknown>, headers = b.p.headers) => t.graphql(query, variables, headers);
  const errorOf = (res: { body: { errors?: Array<{ message: string; extensions: Record<string, unknown> }> } }) => res.body.errors?.[0];

  it('bulkCreateEntries creates in order, publishes on create, writes the events', async () => {
    const res = await gql(CREATE, {
      c: 'posts',
      items: [{ data: { title: 'G1' } }, { locale: 'de', state: 'published', data: { title: 'G2' } }],
    });
    expect(res.body.errors).toBeUndefined();
    const out = res.body.data.bulkCreateEntries;
    expect(out.message).toBe('Bulk content created successfully.');
    expect(out.data).toMatchObject([
      { locale: 'en', state: 'draft', publishedVersionNumber: null, isDraftDirty: true, fields: { title: 'G1' } },
      { locale: 'de', state: 'published', publishedVersionNumber: 1, isDraftDirty: false, fields: { title: 'G2' } },
    ]);
    expect(out.data[0].createdAt).toMatch(/^\d{4}-/);
    const events = await b.events(out.data.map((e: { uuid: string }) => e.uuid));
    expect(events.map((e) => e.event)).toEqual(['content.created', 'content.created', 'content.published']);
  });

  it('per-index validation errors in extensions.errors, nothing written', async () => {
    const before = await b.counts();
    const res = await gql(CREATE, { c: 'posts', items: [{ data: { title: 'ok' } }, { locale: 'zz', data: { views: 'x' } }, { data: 'text' }] });
    const err = errorOf(res);
    expect(err?.extensions).toMatchObject({ code: 'VALIDATION_FAILED', status: 422 });
    expect(Object.keys(err?.extensions.errors as object).sort()).toEqual(['items.1.data.title', 'items.1.data.views', 'items.1.locale', 'items.2.data']);
    expect(await b.counts()).toEqual(before);
    const empty = errorOf(await gql(CREATE, { c: 'posts', items: [] }));
    expect(empty?.extensions.errors).toEqual({ items: ['The items field must have at least 1 items.'] });
  });

  it('bulkUpdateEntries patches, publishes and unpublishes; missing UUIDs are listed', async () => {
    const made = await gql(CREATE, { c: 'posts', items: [{ state: 'published', data: { title: 'U1' } }, { data: { title: 'U2' } }] });
    const [a, c] = made.body.data.bulkCreateEntries.data.map((e: { uuid: string }) => e.uuid);
    const res = await gql(UPDATE, { c: 'posts', items: [{ uuid: a, state: 'draft', data: { views: 2 } }, { uuid: c, state: 'published', data: {} }] });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.bulkUpdateEntries).toMatchObject({
      message: 'Bulk content updated successfully.',
      data: [
        { uuid: a, state: 'draft', publishedVersionNumber: null, fields: { title: 'U1', views: 2 } },
        { uuid: c, state: 'published', publishedVersionNumber: 1 },
      ],
    });
    const ghost = '00000000-0000-4000-8000-00000000abcd';
    const missing = errorOf(await gql(UPDATE, { c: 'posts', items: [{ uuid: a, data: {} }, { uuid: ghost, data: {} }] }));
    expect(missing?.extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: { 'items.1.uuid': [expect.any(String)] } });
    expect(missing?.message).toContain(ghost);
    const dup = errorOf(await gql(UPDATE, { c: 'posts', items: [{ uuid: a, data: {} }, { uuid: a, data: {} }] }));
    expect(dup?.extensions.errors).toEqual({ 'items.1.uuid': ['The items.1.uuid field has a duplicate value.'] });
  });

  it('bulkDeleteEntries trashes or force deletes and counts', async () => {
    const made = await gql(CREATE, { c: 'posts', items: [{ data: { title: 'D1' } }, { data: { title: 'D2' } }] });
    const [a, c] = made.body.data.bulkCreateEntries.data.map((e: { uuid: string }) => e.uuid);
    const soft = await gql(DELETE, { c: 'posts', uuids: [a, '00000000-0000-4000-8000-000000000000'] });
    expect(soft.body.data.bulkDeleteEntries).toEqual({ message: 'Bulk content deleted successfully.', count: 1, force: false });
    const hard = await gql(DELETE, { c: 'posts', uuids: [a, c], force: true });
    expect(hard.body.data.bulkDeleteEntries).toEqual({ message: 'Bulk content deleted successfully.', count: 2, force: true });
    const tooMany = errorOf(await gql(DELETE, { c: 'posts', uuids: Array(101).fill(a) }));
    expect(tooMany?.extensions.errors).toEqual({ uuids: ['The uuids field must not have more than 100 items.'] });
  });

  it('401, 403 and 404 carry the REST status', async () => {
    const items = [{ data: { title: 'x' } }];
    const unauth = await gql(CREATE, { c: 'posts', items }, { 'project-id': b.p.uuid, authorization: 'Bearer nope' });
    expect(unauth.status).toBe(401);
    const noCreate = await b.p.tokenWith(['read', 'update', 'delete']);
    expect(errorOf(await gql(CREATE, { c: 'posts', items }, noCreate))?.extensions).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    const noUpdate = await b.p.tokenWith(['create']);
    expect(errorOf(await gql(UPDATE, { c: 'posts', items: [] }, noUpdate))?.extensions.status).toBe(403);
    expect(errorOf(await gql(DELETE, { c: 'posts', uuids: [] }, noUpdate))?.extensions.status).toBe(403);
    const missing = errorOf(await gql(CREATE, { c: 'nope', items }));
    expect(missing).toMatchObject({ message: 'Collection not found.', extensions: { code: 'NOT_FOUND', status: 404 } });
  });
});

describe('bulk rate limit', () => {
  let t: TestApp;
  let b: BulkProject;
  beforeAll(async () => {
    // 20 per minute gives the bulk bucket 2 points (a tenth), shared by REST and GraphQL.
    t = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '20' } });
    b = await bulkProject(t);
  });
  afterAll(() => t.close());

  it('answers 429 with Retry-After once the bulk budget is spent, on REST and GraphQL', async () => {
    const body = { items: [{ data: { title: 'r' } }] };
    expect((await b.create('posts', body)).status).toBe(201);
    expect((await b.update('posts', { items: [] })).status).toBe(422);
    const limited = await b.remove('posts', { uuids: ['00000000-0000-4000-8000-000000000000'] });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    const gql = await t.graphql(CREATE, { c: 'posts', items: body.items }, b.p.headers);
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    // Single-entry routes draw from the default budget and still work.
    expect((await b.req('POST', '/api/posts', { data: { title: 'single' } })).status).toBe(201);
  });
});
