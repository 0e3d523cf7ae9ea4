import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { contentProject } from '../entries/helpers.ts';
import { MAX_INLINED_TARGETS } from '../../src/filtering/compile.ts';

/**
 * A list read looks a nested relation filter's targets up first and names them in its page and COUNT
 * (src/filtering/compile.ts, compileRelated); past MAX_INLINED_TARGETS it joins the lookup as before.
 * Both ways must select exactly the same entries: single and multiple relations, published and draft
 * copies, combined with other conditions and `or`, page after page. Expected answers are computed here
 * from the seeded data. Read cache off, so every request takes the read path. On PGlite too.
 */
describe.each([
  ['PostgreSQL', false],
  ['embedded PGlite', true],
])('nested relation filters with their targets named (%s)', (_name, embedded) => {
  let t: TestApp;
  let c: Awaited<ReturnType<typeof contentProject>>;
  const writers = MAX_INLINED_TARGETS + 5;
  const DRAFT_ONLY = MAX_INLINED_TARGETS + 3;
  /** Post number i: author writer (i * 7) % writers, co-authors writers i and i + 1, views i. */
  const posts = 60;
  let uuids: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({ embedded, env: { READ_CACHE_MB: '0' } });
    c = await contentProject(t);
    const authors = await c.collection('authors', [{ name: 'name', type: 'text' }]);
    await c.collection('posts', [
      { name: 'title', type: 'text' },
      { name: 'views', type: 'number' },
      { name: 'author', type: 'relation', options: { relation: { collection: authors.id, type: 1 } } },
      { name: 'coauthors', type: 'relation', options: { relation: { collection: authors.id, type: 2 } } },
    ]);
    // The last two writers are drafts only: a published read must not find them as targets. The
    // published ones are still more than the bound, so a filter matching all of them is joined.
    uuids = await bulkCreate(
      'authors',
      Array.from({ length: writers }, (_, n) => ({ state: n >= DRAFT_ONLY ? 'draft' : 'published', data: { name: `Writer ${n}` } })),
    );
    await bulkCreate(
      'posts',
      Array.from({ length: posts }, (_, i) => ({
        state: 'published',
        data: { title: `Post ${i}`, views: i, author: uuids[(i * 7) % writers], coauthors: [uuids[i % writers], uuids[(i + 1) % writers]] },
      })),
    );
  }, 120_000);
  afterAll(() => t.close());

  /** Creates `items` through the bulk route (50 a request, 4 requests at a time); their UUIDs in order. */
  async function bulkCreate(slug: string, items: unknown[]): Promise<string[]> {
    const batches = Array.from({ length: Math.ceil(items.length / 50) }, (_, b) => items.slice(b * 50, b * 50 + 50));
    const out: string[][] = [];
    for (let i = 0; i < batches.length; i += 4) {
      out.push(
        ...(await Promise.all(
          batches.slice(i, i + 4).map(async (batch) => {
            const r = await t.request({ method: 'POST', url: `/api/bulk/${slug}/entries`, headers: c.p.headers, body: { items: batch } });
            expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(201);
            return (r.body.data as Array<{ uuid: string }>).map((e) => e.uuid);
          }),
        )),
      );
    }
    return out.flat();
  }

  /**
   * Every title the filter selects, read page by page (10 per page; in views order unless the query
   * names a sort), with the ids in page order and the total of each page's meta.
   */
  const titles = async (query: string): Promise<{ titles: string[]; ids: number[]; total: number; count: number }> => {
    const out: string[] = [];
    const ids: number[] = [];
    let total = -1;
    const sort = query.includes('sort=') ? '' : '&sort=views:asc';
    for (let page = 1; ; page++) {
      const r = await c.list('posts', `?${query}&paginate=10&page=${page}${sort}`);
      expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
      total = r.body.meta.total;
      out.push(...r.body.data.map((p: { fields: { title: string } }) => p.fields.title));
      ids.push(...r.body.data.map((p: { id: number }) => p.id));
      if (r.body.data.length < 10) break;
    }
    const counted = await c.list('posts', `?${query}&count=1`);
    expect(counted.status).toBe(200);
    return { titles: out, ids, total, count: counted.body.count };
  };
  const byNumber = (t: string[]) => [...t].sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)));
  const expected = (pick: (i: number) => boolean): string[] => Array.from({ length: posts }, (_, i) => i).filter(pick).map((i) => `Post ${i}`);
  const named = (n: number, pattern: string) => `Writer ${n}`.includes(pattern);

  it.each([
    // 114 published targets (1, 10-19, 100-199, 1000-1002): named in the statements.
    ['like, a few targets', 'where[author][name][like]=Writer%201', (i: number) => named((i * 7) % writers, 'Writer 1')],
    // Every published writer matches: past the bound, joined.
    ['like, every target (past the bound)', 'where[author][name][like]=Writer', () => true],
    ['no target', 'where[author][name][like]=Nobody', () => false],
    ['with a range', 'where[author][name][like]=Writer%202&where[views][between]=10,50', (i: number) => named((i * 7) % writers, 'Writer 2') && i >= 10 && i <= 50],
    // The page and its total in one statement (two ANDed conditions, id order), either way the targets go.
    ['a few targets, a wide range, id order', 'where[author][name][like]=Writer%201&where[views][between]=5,59&sort=id:asc', (i: number) => named((i * 7) % writers, 'Writer 1') && i >= 5],
    ['every target (past the bound), a narrow range, id order', 'where[author][name][like]=Writer&where[views][between]=20,23&sort=id:asc', (i: number) => i >= 20 && i <= 23],
    [
      'or of two nested filters',
      'where[or][0][author][name][eq]=Writer%2014&where[or][1][coauthors][name][eq]=Writer%2030',
      (i: number) => (i * 7) % writers === 14 || i === 30 || i + 1 === 30,
    ],
    ['multiple relation, a few targets', 'where[coauthors][name][like]=Writer%203', (i: number) => named(i, 'Writer 3') || named(i + 1, 'Writer 3')],
    ['multiple relation, past the bound', 'where[coauthors][name][like]=Wri', () => true],
  ])('%s: the same entries, pages and totals', async (_name, query, pick) => {
    const want = expected(pick);
    const got = await titles(query);
    if (query.includes('sort=id:asc')) {
      // Id order is creation order (created in parallel batches): the ids ascend across pages.
      expect(got.ids).toEqual([...got.ids].sort((a, b) => a - b));
      expect(byNumber(got.titles)).toEqual(want);
    } else {
      expect(got.titles).toEqual(want);
    }
    expect(got.total).toBe(want.length);
    expect(got.count).toBe(want.length);
  });

  it('a draft read names draft targets too', async () => {
    // A post whose working draft names a draft-only writer.
    const edited = await c.list('posts', '?paginate=1&where[title][eq]=Post%2059');
    const post = edited.body.data[0].uuid as string;
    const patched = await c.patch('posts', post, { data: { author: uuids[DRAFT_ONLY] } });
    expect(patched.status, JSON.stringify(patched.body).slice(0, 300)).toBe(200);
    const draft = await c.list('posts', `?state=draft&paginate=10&where[author][name][eq]=Writer%20${DRAFT_ONLY}`);
    expect(draft.body.data.map((p: { uuid: string }) => p.uuid)).toEqual([post]);
    expect(draft.body.meta.total).toBe(1);
    // The published copy still names its old author, and a published read never sees the draft-only writer.
    const published = await c.list('posts', `?paginate=10&where[author][name][eq]=Writer%20${DRAFT_ONLY}`);
    expect(published.body.meta.total).toBe(0);
  });
});
