import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';

// A collection is often created first and given fields later: the project's typed schema must stay
// valid meanwhile, for that collection and for groups without children.
describe('typed schema with a collection that has no fields yet', () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    t = await startTestApp();
    p = await t.project();
  });
  afterAll(() => t.close());

  it('keeps answering GraphQL for the project', async () => {
    const created = await t.request({ method: 'POST', url: '/api/collections', headers: p.headers, body: { name: 'Drafts', slug: 'drafts' } });
    expect(created.status).toBe(201);
    const group = await t.request({
      method: 'POST',
      url: '/api/collections/drafts/fields',
      headers: p.headers,
      body: { type: 'group', label: 'SEO', name: 'seo', options: { repeatable: false } },
    });
    expect(group.status).toBe(201);
    const res = await t.graphql('{ project { uuid } }', {}, p.headers);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.project.uuid).toBe(p.uuid);
  });
});
