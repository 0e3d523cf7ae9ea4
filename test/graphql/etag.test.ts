import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { matchesIfNoneMatch } from '../../src/edge/read-cache/etag.ts';
import { typedWorld, type TypedWorld } from './typed-world.ts';

describe('ETag and 304 on published REST reads (PGlite)', () => {
  let t: TestApp;
  let w: TypedWorld;
  let post: string;
  let author: string;
  beforeAll(async () => {
    t = await startTestApp({ embedded: true });
    w = await typedWorld(t, 'Etags');
    author = (await w.rest('POST', '/api/authors', { data: { name: 'Ann' }, state: 'published' })).body.uuid;
    post = (await w.rest('POST', '/api/posts', { data: { title: 'Hello', author }, state: 'published' })).body.uuid;
  });
  afterAll(() => t.close());

  const get = (url: string, etag?: string) => w.rest('GET', url, undefined, etag ? { ...w.p.headers, 'if-none-match': etag } : w.p.headers);

  it('tags a published entry and answers 304 to a matching If-None-Match', async () => {
    const first = await get(`/api/posts/${post}`);
    expect(first.status).toBe(200);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.headers['cache-control']).toBe('no-cache');
    const again = await get(`/api/posts/${post}`, etag);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe(etag);
    expect((await get(`/api/posts/${post}`, `"other", ${etag}`)).status).toBe(304);
    expect((await get(`/api/posts/${post}`, '"other"')).status).toBe(200);
  });

  it('moves the tag when the entry or an entry it links is published again, not when a draft is saved', async () => {
    // The first draft save flips is_draft_dirty in the published body; later saves change nothing there.
    await w.rest('PATCH', `/api/posts/${post}`, { data: { title: 'First draft edit' } });
    const before = (await get(`/api/posts/${post}`)).headers.etag as string;
    await w.rest('PATCH', `/api/posts/${post}`, { data: { title: 'Draft edit' } });
    expect((await get(`/api/posts/${post}`, before)).status).toBe(304);
    await w.rest('POST', `/api/posts/${post}/publish`);
    const republished = await get(`/api/posts/${post}`, before);
    expect(republished.status).toBe(200);
    expect(republished.body.fields.title).toBe('Draft edit');

    const current = republished.headers.etag as string;
    await w.rest('PATCH', `/api/authors/${author}`, { data: { name: 'Annie' } });
    await w.rest('POST', `/api/authors/${author}/publish`);
    const relinked = await get(`/api/posts/${post}`, current);
    expect(relinked.status).toBe(200);
    expect(relinked.body.fields.author.fields.name).toBe('Annie');
  });

  it('tags published lists per query, and leaves draft reads untagged', async () => {
    const list = await get('/api/posts?paginate=10');
    expect(list.status).toBe(200);
    const etag = list.headers.etag as string;
    expect((await get('/api/posts?paginate=10', etag)).status).toBe(304);
    expect((await get('/api/posts?paginate=10&sort=id:desc', etag)).status).toBe(200);
    await w.rest('POST', '/api/posts', { data: { title: 'Another' }, state: 'published' });
    expect((await get('/api/posts?paginate=10', etag)).status).toBe(200);

    const draft = await get(`/api/posts/${post}?state=draft`);
    expect(draft.status).toBe(200);
    expect(draft.headers.etag).toBeUndefined();
  });

  it('compares weakly, accepts lists and *', () => {
    expect(matchesIfNoneMatch('W/"abc"', 'W/"abc"')).toBe(true);
    expect(matchesIfNoneMatch('"abc"', 'W/"abc"')).toBe(true);
    expect(matchesIfNoneMatch('"x", W/"abc"', 'W/"abc"')).toBe(true);
    expect(matchesIfNoneMatch('*', 'W/"abc"')).toBe(true);
    expect(matchesIfNoneMatch('"abd"', 'W/"abc"')).toBe(false);
    expect(matchesIfNoneMatch(undefined, 'W/"abc"')).toBe(false);
  });
});
