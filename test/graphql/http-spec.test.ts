import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphQLClient } from 'graphql-request';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { typedWorld, type TypedWorld } from './typed-world.ts';
import { injectFetch } from './inject-fetch.ts';

const MISSING = '00000000-0000-4000-8000-000000000000';
const ACCEPTS = ['application/json', 'application/graphql-response+json'] as const;

/** Statuses and error shapes by the GraphQL-over-HTTP specification (issue 17, "GraphQL over HTTP"). */
describe('GraphQL over HTTP: statuses and error shapes', () => {
  let t: TestApp;
  let w: TypedWorld;
  let post: string;
  beforeAll(async () => {
    t = await startTestApp({ embedded: true });
    w = await typedWorld(t, 'Http spec');
    post = (await w.rest('POST', '/api/posts', { data: { title: 'Hello' }, state: 'published' })).body.uuid;
  });
  afterAll(() => t.close());

  const post$ = (body: unknown, accept: string, headers: Record<string, string> = w.p.headers) =>
    t.request({ method: 'POST', url: '/graphql', headers: { ...headers, accept }, body });

  for (const accept of ACCEPTS) {
    it(`answers data with a field error 200 under ${accept}, the class in extensions.code and no extensions.http`, async () => {
      const res = await post$({ query: `{ a: post(uuid: "${post}") { title } b: post(uuid: "${MISSING}") { title } }` }, accept);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toContain(accept);
      expect(res.body.data).toEqual({ a: { title: 'Hello' }, b: null });
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0]).toMatchObject({ path: ['b'], extensions: { code: 'NOT_FOUND' } });
      expect(res.text).not.toContain('"http"');
    });

    it(`gives a variable of the wrong type BAD_REQUEST under ${accept}`, async () => {
      const res = await post$({ query: 'query($n: Int) { posts(perPage: $n) { data { uuid } } }', variables: { n: 'many' } }, accept);
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors[0].message).toContain('$n');
      expect(res.body.errors[0].extensions.code).toBe('BAD_REQUEST');
      // The spec: 4xx when there is no data under graphql-response+json; 200 "should" under application/json.
      expect(res.status).toBe(accept === 'application/json' ? 200 : 400);
      expect(res.text).not.toContain('"http"');
    });

    it(`answers invalid JSON with a GraphQL errors object under ${accept}`, async () => {
      const res = await t.request({ method: 'POST', url: '/graphql', headers: { ...w.p.headers, accept, 'content-type': 'application/json' }, payload: '{"query": ' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errors: [{ message: 'The request body is not valid JSON.', extensions: expect.objectContaining({ code: 'BAD_REQUEST' }) }] });
    });

    it(`keeps the error status when there is no data (authentication) under ${accept}`, async () => {
      const res = await post$({ query: '{ posts { data { uuid } } }' }, accept, { 'project-id': w.p.uuid, authorization: 'Bearer cms_wrong' });
      expect(res.status).toBe(401);
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      expect(res.text).not.toContain('"http"');
    });
  }

  it('answers a mutation over GET 405', async () => {
    const query = encodeURIComponent('mutation { createPost(data: { title: "x" }) { uuid } }');
    const res = await t.request({ method: 'GET', url: `/graphql?query=${query}`, headers: { ...w.p.headers, accept: 'application/graphql-response+json' } });
    expect(res.status).toBe(405);
    expect(res.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    const page = await w.ok('{ posts(state: draft, where: { title: { eq: "x" } }) { pageInfo { total } } }');
    expect(page.posts.pageInfo.total).toBe(0);
  });

  it('lets graphql-request read partial data: one aliased field errors, the other returns data', async () => {
    const client = new GraphQLClient('http://localhost/graphql', { fetch: injectFetch(t, w.p.headers), errorPolicy: 'all' });
    const res = await client.rawRequest<{ a: { title: string } | null; b: { title: string } | null }>(
      `query Two { a: post(uuid: "${post}") { title } b: post(uuid: "${MISSING}") { title } }`,
    );
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ a: { title: 'Hello' }, b: null });
    expect(res.errors?.[0]).toMatchObject({ path: ['b'], extensions: { code: 'NOT_FOUND' } });
  });
});
