import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoBanner, seedDemo } from '../../src/seed/demo.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { searchIndexName } from '../../src/collections/search-indexes.ts';
import { fallbackIndexName } from '../../src/collections/fallback-indexes.ts';

describe('first-start demo seed', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('creates a project, a small content model, published entries and a * token, once', async () => {
    const seed = await seedDemo(t.services);
    expect(seed).not.toBeNull();
    const headers = { 'project-id': seed!.project.uuid, authorization: `Bearer ${seed!.token}` };

    const res = await t.request({ method: 'GET', url: '/api?with=fields', headers });
    expect(res.status).toBe(200);
    const [authors, posts] = res.body.collections;
    expect([authors.slug, posts.slug]).toEqual(['authors', 'posts']);
    const byName = Object.fromEntries(posts.fields.map((f: { name: string }) => [f.name, f]));
    expect(byName.author.options.relation).toEqual({ collection: authors.id, type: 1 });
    expect(byName.cover.type).toBe('media');
    expect(byName.seo.type).toBe('group');
    expect(byName['meta-title'].parent_field_id).toBe(byName.seo.id);
    // The seed's schema changes run inside its transaction: the collection's search and fallback indexes are built there.
    const wanted = [searchIndexName(posts.id, 'd'), searchIndexName(posts.id, 'p'), fallbackIndexName(posts.id, 'd'), fallbackIndexName(posts.id, 'p')];
    const built = await t.database.query<{ name: string }>(`SELECT indexname AS name FROM pg_indexes WHERE indexname = ANY($1::text[]) ORDER BY 1`, [wanted]);
    expect(built.map((r) => r.name)).toEqual([...wanted].sort());

    const entries = await t.database.prisma.entry.findMany({ where: { projectId: seed!.project.id }, orderBy: { id: 'asc' } });
    expect(entries.map((e) => e.state)).toEqual(['published', 'published']);
    expect((entries[1].publishedData as Record<string, unknown>).author).toBe(entries[0].uuid);
    const token = await t.database.prisma.apiToken.findFirstOrThrow({ where: { projectId: seed!.project.id } });
    expect(token.abilities).toEqual(['*']);

    expect(await seedDemo(t.services)).toBeNull();
    expect(await t.database.prisma.project.count()).toBe(1);

    const banner = demoBanner(seed!, 'http://localhost:4000');
    expect(banner).toContain('http://localhost:4000/graphql');
    expect(banner).toContain(seed!.project.uuid);
    expect(banner).toContain(seed!.token);
  });

  it('two replicas starting together seed once', async () => {
    const t2 = await startTestApp();
    try {
      const results = await Promise.all([seedDemo(t2.services), seedDemo(t2.services), seedDemo(t2.services)]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await t2.database.prisma.project.count()).toBe(1);
    } finally {
      await t2.close();
    }
  });
});
