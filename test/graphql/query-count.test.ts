import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countQueries as countStatements } from '../helpers/sql-count.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { typedWorld, type TypedWorld } from './typed-world.ts';

/** Statements sent to PostgreSQL while `fn` runs. */
async function countQueries(fn: () => Promise<unknown>): Promise<number> {
  return (await countStatements(fn)).queries;
}

const DEEP = `query($n: Int!, $s: ContentState) {
  posts(perPage: $n, state: $s, sort: [id_ASC]) {
    data { title coverImage { url } author { name avatar { url } company { name } } versions { nodes { versionNumber } } }
    pageInfo { total }
  }
}`;

describe('typed reads batch relation, media and version loads (PostgreSQL)', () => {
  let t: TestApp;
  let w: TypedWorld;

  beforeAll(async () => {
    t = await startTestApp();
    w = await typedWorld(t, 'Counting');
    const companies = await w.rest('POST', '/api/bulk/companies/entries', { items: [1, 2, 3].map((i) => ({ state: 'published', data: { name: `C${i}` } })) });
    expect(companies.status).toBe(201);
    const authorItems = companies.body.data.map((c: { uuid: string }, i: number) => ({ state: 'published', data: { name: `A${i}`, company: c.uuid, avatar: w.assetUuid } }));
    const authors = await w.rest('POST', '/api/bulk/authors/entries', { items: [...authorItems, ...authorItems] });
    expect(authors.status).toBe(201);
    const authorUuids: string[] = authors.body.data.map((a: { uuid: string }) => a.uuid);
    for (let batch = 0; batch < 2; batch++) {
      const items = Array.from({ length: 50 }, (_, i) => ({
        state: 'published',
        data: { title: `P${batch * 50 + i}`, author: authorUuids[i % authorUuids.length], 'cover-image': [w.assetUuid] },
      }));
      const res = await w.rest('POST', '/api/bulk/posts/entries', { items });
      expect(res.status).toBe(201);
    }
  });
  afterAll(() => t.close());

  it('reads 100 entries with two relation levels, media and versions in as many queries as 5', async () => {
    for (const state of ['published', 'draft']) {
      // Warm the project's schema so only the reads are counted.
      await w.ok(DEEP, { n: 1, s: state });
      let small: { posts: { data: unknown[] } } | undefined;
      let large: { posts: { data: Array<{ author: { company: { name: string } } }> } } | undefined;
      const few = await countQueries(async () => (small = await w.ok(DEEP, { n: 5, s: state })));
      const many = await countQueries(async () => (large = await w.ok(DEEP, { n: 100, s: state })));
      expect(small!.posts.data).toHaveLength(5);
      expect(large!.posts.data).toHaveLength(100);
      expect(large!.posts.data.every((p) => /^C\d$/.test(p.author.company.name))).toBe(true);
      expect(many, `${state}: ${few} queries for 5 entries, ${many} for 100`).toBe(few);
      expect(few).toBeGreaterThan(2);
      expect(many).toBeLessThan(20);
    }
  });
});
