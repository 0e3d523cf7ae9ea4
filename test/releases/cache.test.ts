import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { World } from '../helpers/world.ts';
import { entry, release, releaseWorld } from './helpers.ts';

/**
 * Cached published reads are dropped exactly when a release changes what they show: editing the
 * release keeps them, publishing it drops those of the collections it changed. Previews never
 * come from, nor go into, the cache.
 */
describe('releases and the published read cache', () => {
  let w: World;
  beforeAll(async () => {
    w = await releaseWorld();
  });
  afterAll(() => w.close());

  const rest = async (url: string) => {
    const res = await w.api('GET', url);
    return { body: res.body, cache: res.headers['x-cache'] as string | undefined };
  };
  const gql = async (query: string) => {
    const cache = w.t.services.graphqlReadCache!;
    const hits = cache.hits;
    const res = await w.t.graphql(query, undefined, w.p.headers);
    expect(res.body.errors).toBeUndefined();
    return { data: res.body.data, hit: cache.hits > hits };
  };

  it('keeps cached reads while the release is edited or previewed, drops them when it publishes', async () => {
    const post = await entry(w, 'posts', { title: 'v1' }, 'published');
    await w.api('PATCH', `/api/posts/${post}`, { data: { title: 'v2' } });
    const untouched = await entry(w, 'pages', { heading: 'untouched' }, 'published');
    const POSTS = '{ posts { data { title } } }';

    await rest('/api/posts');
    await rest(`/api/pages/${untouched}`);
    await gql(POSTS);
    expect((await rest('/api/posts')).cache).toBe('HIT');
    expect((await gql(POSTS)).hit).toBe(true);

    const r = await release(w, [{ collection: 'posts', uuid: post, action: 'publish' }]);
    await w.api('PATCH', `/api/releases/${r.id}`, { title: 'edited' });
    const preview = await rest(`/api/posts?release=${r.id}`);
    expect(preview.cache).toBeUndefined();
    expect(preview.body.map((e: { fields: { title: string } }) => e.fields.title)).toContain('v2');
    const gqlPreview = await w.t.graphql(`{ posts(release: "${r.id}") { data { title } } }`, undefined, w.p.headers);
    expect(gqlPreview.body.data.posts.data.map((e: { title: string }) => e.title)).toContain('v2');
    // Neither preview was cached or served from the cache, and neither dropped the published reads.
    expect((await rest('/api/posts')).cache).toBe('HIT');
    expect((await rest('/api/posts')).body.map((e: { fields: { title: string } }) => e.fields.title)).toContain('v1');
    expect((await gql(POSTS)).hit).toBe(true);
    expect((await rest(`/api/posts?release=${r.id}`)).cache).toBeUndefined();

    expect((await w.api('POST', `/api/releases/${r.id}/publish`)).status).toBe(200);
    const after = await rest('/api/posts');
    expect(after.cache).toBe('MISS');
    expect(after.body.map((e: { fields: { title: string } }) => e.fields.title)).toContain('v2');
    const afterGql = await gql(POSTS);
    expect(afterGql.hit).toBe(false);
    expect(afterGql.data.posts.data.map((e: { title: string }) => e.title)).toContain('v2');
    // A collection the release did not touch keeps its cached reads.
    expect((await rest(`/api/pages/${untouched}`)).cache).toBe('HIT');
  });
});
