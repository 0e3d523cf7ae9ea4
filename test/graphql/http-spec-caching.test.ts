import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { typedWorld, type TypedWorld } from './typed-world.ts';

/** Conditional GETs on /graphql for published reads, as REST answers them (issue 17, "Persisted operations"). */
describe('GraphQL GET: ETag, Cache-Control and 304 on published reads', () => {
  let t: TestApp;
  let w: TypedWorld;
  beforeAll(async () => {
    t = await startTestApp({ embedded: true });
    w = await typedWorld(t, 'Graphql etags');
    await w.rest('POST', '/api/posts', { data: { title: 'Tagged' }, state: 'published' });
  });
  afterAll(() => t.close());

  const get = (query: string, extra: Record<string, string> = {}, variables?: Record<string, unknown>) =>
    t.request({
      method: 'GET',
      url: `/graphql?query=${encodeURIComponent(query)}${variables ? `&variables=${encodeURIComponent(JSON.stringify(variables))}` : ''}`,
      headers: { ...w.p.headers, ...extra },
    });
  const LIST = '{ posts { data { uuid title } } }';

  it('tags a published read and answers 304 to a matching If-None-Match, 200 again when content changes', async () => {
    const first = await get(LIST);
    expect(first.status).toBe(200);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.headers['cache-control']).toBe('no-cache');
    const again = await get(LIST, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe(etag);
    expect((await get(LIST, { 'if-none-match': `"other", ${etag}` })).status).toBe(304);

    await w.rest('POST', '/api/posts', { data: { title: 'Another' }, state: 'published' });
    const changed = await get(LIST, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.body.data.posts.data).toHaveLength(2);
    expect(changed.headers.etag).not.toBe(etag);
  });

  it('leaves draft reads, POST answers and non-content fields untagged', async () => {
    expect((await get('{ posts(state: draft) { data { uuid } } }')).headers.etag).toBeUndefined();
    const draftVar = await get('query($s: ContentState) { posts(state: $s) { data { uuid } } }', {}, { s: 'draft' });
    expect(draftVar.status, draftVar.text).toBe(200);
    expect(draftVar.headers.etag).toBeUndefined();
    const post = await t.request({ method: 'POST', url: '/graphql', headers: w.p.headers, body: { query: LIST } });
    expect(post.status).toBe(200);
    expect(post.headers.etag).toBeUndefined();
    expect((await get('{ webhooks { uuid } }')).headers.etag).toBeUndefined();
  });

  it('answers a mutation over GET 405, with nothing written', async () => {
    const res = await get('mutation { createPost(data: { title: "Via GET" }) { uuid } }');
    expect(res.status).toBe(405);
    expect(res.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    const page = await w.ok('{ posts(state: draft, where: { title: { eq: "Via GET" } }) { pageInfo { total } } }');
    expect(page.posts.pageInfo.total).toBe(0);
  });
});
