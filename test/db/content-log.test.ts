import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { world, posts, collection, field } from '../helpers/world.ts';
import type { TestApp, TestProject } from '../helpers/app.ts';

/**
 * The content change log (migration 20261128010000): generations are counts of its rows over a base,
 * and the compaction that folds the rows into the base keeps every generation as it was, so a read
 * cached under one stays valid and a change after it still moves it.
 */
describe('content change log compaction', () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    ({ t, p } = await world({ project: { name: 'Log' }, via: 'api', collections: [posts(), collection('tags', [field.text('label')])] }));
  }, 120_000);
  afterAll(() => t.close());

  const ok = async (method: string, url: string, body?: unknown) => {
    const res = await t.request({ method, url, headers: p.headers, body });
    expect(res.status, res.text).toBeLessThan(300);
    return res;
  };
  const generations = async () => {
    const [row] = await t.database.query<{ generation: string; collections: Record<string, [number, number, number]> }>(
      `SELECT cms_project_generation($1)::text AS generation,
              (SELECT json_object_agg(g.slug, json_build_array(g.collection_id, g.published, g.draft)) FROM cms_collection_generations($1) g) AS collections`,
      [p.id],
    );
    return row;
  };
  /**
   * Folds everything committed (keep_seconds 0: the horizon the call itself records is old enough).
   * The app's own timer may hold the compaction at that moment, and then this call folds nothing.
   */
  const compact = async () => {
    for (let i = 0; i < 20 && (await logRows()) > 0; i++) {
      await t.database.query('SELECT cms_compact_content_changes(0)');
    }
  };
  const logRows = async () => Number((await t.database.query<{ n: string }>('SELECT count(*)::text AS n FROM content_changes WHERE project_id = $1', [p.id]))[0].n);

  it('folds the rows into the base and keeps every generation; later changes still move them', async () => {
    const post = (await ok('POST', '/api/posts', { state: 'published', data: { title: 'One' } })).body.uuid;
    await ok('PATCH', `/api/posts/${post}`, { data: { title: 'One, draft' } });
    await ok('POST', '/api/tags', { data: { label: 'draft tag' } });
    const before = await generations();
    expect(await logRows()).toBeGreaterThan(0);

    await compact();
    expect(await logRows()).toBe(0);
    expect(await generations()).toEqual(before);

    // A draft save moves the draft generation of posts only; a publish moves both.
    await ok('PATCH', `/api/posts/${post}`, { data: { title: 'One, again' } });
    const drafted = await generations();
    expect(BigInt(drafted.generation)).toBeGreaterThan(BigInt(before.generation));
    expect(drafted.collections.posts[1]).toBe(before.collections.posts[1]);
    expect(drafted.collections.posts[2]).toBeGreaterThan(before.collections.posts[2]);
    expect(drafted.collections.tags).toEqual(before.collections.tags);
    await ok('POST', `/api/posts/${post}/publish`);
    const published = await generations();
    expect(published.collections.posts[1]).toBeGreaterThan(drafted.collections.posts[1]);
    await compact();
    expect(await generations()).toEqual(published);
  });

  it('counts a write that moves a collection by its collection rows alone; a commit that moves none still moves the project', async () => {
    const projectWide = async () => Number((await t.database.query<{ n: string }>('SELECT count(*)::text AS n FROM content_changes WHERE project_id = $1 AND collection_id IS NULL', [p.id]))[0].n);
    const post = (await ok('POST', '/api/posts', { state: 'published', data: { title: 'Two' } })).body.uuid;
    const before = await generations();
    const wide = await projectWide();
    await ok('PATCH', '/api/bulk/posts/entries', { items: [{ uuid: post, data: { title: 'Two, published' }, state: 'published' }] });
    const after = await generations();
    expect(BigInt(after.generation)).toBeGreaterThan(BigInt(before.generation));
    expect(after.collections.posts[1]).toBeGreaterThan(before.collections.posts[1]);
    expect(await projectWide()).toBe(wide);

    // A translation group moves no collection: its commit writes the project-wide row.
    await t.database.query('INSERT INTO translation_groups (project_id) VALUES ($1)', [p.id]);
    expect(await projectWide()).toBe(wide + 1);
    const grouped = await generations();
    expect(BigInt(grouped.generation)).toBeGreaterThan(BigInt(after.generation));
    expect(grouped.collections).toEqual(after.collections);
  });
});
