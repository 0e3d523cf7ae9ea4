import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { World } from '../helpers/world.ts';
import { entry, release, releaseWorld } from './helpers.ts';

/**
 * `?release=` reads the content as it will be once the release is published: its publish items show
 * their current drafts, its unpublish items are absent, everything else is as published. The preview
 * is compared with what the publish then really shows.
 */
for (const embedded of [false, true]) describe(`release previews (REST, ${embedded ? 'PGlite' : 'PostgreSQL'})`, () => {
  let w: World;
  let author: string;
  let kept: string;
  let changed: string;
  let fresh: string;
  let dropped: string;
  let releaseId: string;
  beforeAll(async () => {
    w = await releaseWorld({ embedded });
    author = await entry(w, 'authors', { name: 'Draft author' });
    kept = await entry(w, 'posts', { title: 'b kept', views: 1 }, 'published');
    changed = await entry(w, 'posts', { title: 'c old', views: 2 }, 'published');
    await w.api('PATCH', `/api/posts/${changed}`, { data: { title: 'c new', views: 30, author } });
    fresh = await entry(w, 'posts', { title: 'a fresh', views: 10 });
    dropped = await entry(w, 'posts', { title: 'd dropped', views: 4 }, 'published');
    await entry(w, 'posts', { title: 'e draft only', views: 5 });
    const r = await release(w, [
      { collection: 'authors', uuid: author, action: 'publish' },
      { collection: 'posts', uuid: changed, action: 'publish' },
      { collection: 'posts', uuid: fresh, action: 'publish' },
      { collection: 'posts', uuid: dropped, action: 'unpublish' },
    ]);
    releaseId = r.id;
  });
  afterAll(() => w.close());

  /** A preview's version ids and publish times are the would-be ones: the rest must match exactly. */
  const content = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(content)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'published_version_id' && k !== 'published_at').map(([k, x]) => [k, content(x)]))
        : v;
  const titles = (body: { data: Array<{ fields: { title: string } }> }) => body.data.map((e) => e.fields.title);

  it('lists the future view, with where, sort, paging and totals applied to it', async () => {
    const now = await w.api('GET', '/api/posts?paginate=10&sort=title:asc');
    expect(titles(now.body)).toEqual(['b kept', 'c old', 'd dropped']);

    const future = await w.api('GET', `/api/posts?paginate=10&sort=title:asc&release=${releaseId}`);
    expect(future.status).toBe(200);
    expect(titles(future.body)).toEqual(['a fresh', 'b kept', 'c new']);
    expect(future.body.meta.total).toBe(3);
    expect(future.headers['cache-control']).toBe('private, no-store');
    expect(future.headers.etag).toBeUndefined();

    const filtered = await w.api('GET', `/api/posts?paginate=1&page=2&sort=views:desc&where[views][gte]=2&release=${releaseId}`);
    expect(titles(filtered.body)).toEqual(['a fresh']);
    expect(filtered.body.meta.total).toBe(2);
    expect((await w.api('GET', `/api/posts?count&release=${releaseId}`)).body).toEqual({ count: 3 });
    // state is ignored: a release view is its own view.
    expect(titles((await w.api('GET', `/api/posts?state=draft&sort=title:asc&paginate=10&release=${releaseId}`)).body)).toEqual(['a fresh', 'b kept', 'c new']);
  });

  it('gets one entry as it will be, relations hydrated from the future view too', async () => {
    const got = await w.api('GET', `/api/posts/${changed}?release=${releaseId}`);
    expect(got.status).toBe(200);
    expect(got.body.fields).toMatchObject({ title: 'c new', views: 30, author: { uuid: author, fields: { name: 'Draft author' } } });
    expect((await w.api('GET', `/api/posts/${fresh}?release=${releaseId}`)).status).toBe(200);
    expect((await w.api('GET', `/api/posts/${dropped}?release=${releaseId}`)).status).toBe(404);
    expect((await w.api('GET', `/api/posts/${kept}?release=${releaseId}`)).body.fields.title).toBe('b kept');
  });

  it('leaves nothing behind: the published reads, versions and events are as before', async () => {
    const versions = await w.t.database.prisma.entryVersion.count();
    const events = await w.t.database.prisma.outboxEvent.count();
    await w.api('GET', `/api/posts?release=${releaseId}`);
    expect(await w.t.database.prisma.entryVersion.count()).toBe(versions);
    expect(await w.t.database.prisma.outboxEvent.count()).toBe(events);
    expect((await w.api('GET', `/api/posts/${fresh}`)).status).toBe(404);
    expect((await w.api('GET', `/api/posts/${changed}`)).body.fields.title).toBe('c old');
  });

  it('needs read, as a draft read does; an unknown release is 404', async () => {
    expect((await w.api('GET', `/api/posts?release=${releaseId}`, undefined, w.tokens.reader)).status).toBe(200);
    expect((await w.api('GET', `/api/posts?release=${crypto.randomUUID()}`)).status).toBe(404);
    expect((await w.api('GET', '/api/posts?release=nope')).status).toBe(404);
  });

  it('shows exactly what the publish then makes live', async () => {
    const preview = await w.api('GET', `/api/posts?sort=title:asc&release=${releaseId}`);
    const previewOne = await w.api('GET', `/api/posts/${changed}?release=${releaseId}`);
    expect((await w.api('POST', `/api/releases/${releaseId}/publish`)).status).toBe(200);
    const live = await w.api('GET', '/api/posts?sort=title:asc');
    expect(content(live.body)).toEqual(content(preview.body));
    expect(content((await w.api('GET', `/api/posts/${changed}`)).body)).toEqual(content(previewOne.body));
    // A published release previews as the content it made.
    expect((await w.api('GET', `/api/posts?sort=title:asc&release=${releaseId}`)).body).toEqual(live.body);
  });
});
