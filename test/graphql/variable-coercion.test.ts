import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { typedWorld, type TypedWorld } from './typed-world.ts';

/**
 * A variable the schema cannot coerce is the client's mistake wherever it sits: a wrong scalar deep
 * inside a typed input object used to be masked as INTERNAL_SERVER_ERROR with HTTP 500, because
 * graphql-js wraps the scalar's own error. It is BAD_REQUEST with graphql-js's message naming the path.
 */
describe('variables the schema cannot coerce', () => {
  let t: TestApp;
  let w: TypedWorld;
  beforeAll(async () => {
    t = await startTestApp();
    w = await typedWorld(t);
  });
  afterAll(() => t.close());

  const cases = [
    { name: 'a string for a number inside a typed input', query: 'mutation($data: PostInput!) { createPost(data: $data) { uuid } }', variables: { data: { title: 'x', views: 'many' } }, path: 'data.views' },
    { name: 'an unknown enum value', query: 'query($s: ContentState) { posts(state: $s) { data { uuid } } }', variables: { s: 'bogus' }, path: '' },
    { name: 'a list where an object is expected', query: 'mutation($data: PostInput!) { createPost(data: $data) { uuid } }', variables: { data: [1, 2] }, path: '' },
  ];

  for (const accept of ['application/json', 'application/graphql-response+json']) {
    it.each(cases)(`$name → BAD_REQUEST naming the variable (${accept})`, async (c) => {
      const before = await t.database.prisma.entry.count();
      const res = await t.request({ method: 'POST', url: '/graphql', headers: { ...w.p.headers, accept, 'content-type': 'application/json' }, body: { query: c.query, variables: c.variables } });
      expect(res.status).toBe(accept === 'application/json' ? 200 : 400);
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors[0].extensions.code).toBe('BAD_REQUEST');
      expect(res.body.errors[0].message).toMatch(/^Variable "\$\w+" got invalid value/);
      if (c.path) expect(res.body.errors[0].message).toContain(c.path);
      expect(await t.database.prisma.entry.count()).toBe(before);
    });
  }
});
