import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authors, field, posts, world, type World } from '../../helpers/world.ts';

/**
 * Pages of a filter that ANDs several conditions, read with their total in one statement
 * (matchedPageStatement in src/entries/reads/list.ts): the same rows, order and totals as the
 * filter's matches taken one by one, on every page, past the end, in either id order, for drafts,
 * and on both stores.
 */
for (const embedded of [false, true]) describe(`pages of an ANDed filter (REST, ${embedded ? 'PGlite' : 'PostgreSQL'})`, () => {
  let w: World;
  const names = ['Ann', 'Anna', 'Bob'];
  /** Post i: views i, author names[i % 3]; published except every fifth (a draft). */
  const seeded = Array.from({ length: 40 }, (_, i) => ({ title: `P${i}`, views: i, author: names[i % 3], published: i % 5 !== 0 }));
  let uuids: string[] = [];

  beforeAll(async () => {
    w = await world({ app: { embedded, env: { READ_CACHE_MB: '0' } }, collections: [authors(), posts(field.number('views'), field.relation('author', 'authors'))] });
    const a = await w.api('POST', '/api/bulk/authors/entries', { items: names.map((name) => ({ state: 'published', data: { name } })) });
    expect(a.status, a.text).toBe(201);
    const byName = new Map<string, string>(a.body.data.map((e: { uuid: string; fields: { name: string } }) => [e.fields.name, e.uuid]));
    const p = await w.api('POST', '/api/bulk/posts/entries', {
      items: seeded.map((s) => ({ state: s.published ? 'published' : 'draft', data: { title: s.title, views: s.views, author: byName.get(s.author) } })),
    });
    expect(p.status, p.text).toBe(201);
    uuids = p.body.data.map((e: { uuid: string }) => e.uuid);
  }, 240_000);
  afterAll(() => w?.close());

  const page = async (query: string) => {
    const res = await w.api('GET', `/api/posts?${query}`);
    expect(res.status, res.text).toBe(200);
    return { titles: res.body.data.map((e: { fields: { title: string } }) => e.fields.title) as string[], meta: res.body.meta, body: res.body };
  };
  /** Views 5..34 by an author whose name has "ann" (Ann, Anna). */
  const filter = 'where[views][between]=5,34&where[author][name][like]=ann';
  const matches = (published: boolean) => seeded.filter((s) => s.views >= 5 && s.views <= 34 && s.author !== 'Bob' && (!published || s.published)).map((s) => s.title);

  it('pages in id order carry the total of every match, with the authors hydrated', async () => {
    const all = matches(true);
    const first = await page(`${filter}&paginate=7`);
    expect(first.meta.total).toBe(all.length);
    expect(first.titles).toEqual(all.slice(0, 7));
    expect(first.body.data.every((e: { fields: { author: { fields: { name: string } } } }) => /^ann/i.test(e.fields.author.fields.name))).toBe(true);
    const walked: string[] = [];
    for (let n = 1; n <= first.meta.last_page; n++) walked.push(...(await page(`${filter}&paginate=7&page=${n}`)).titles);
    expect(walked).toEqual(all);
  });

  it('a page past the end is empty and still reports the total; no match is a total of 0', async () => {
    const past = await page(`${filter}&paginate=7&page=99`);
    expect(past.titles).toEqual([]);
    expect(past.meta.total).toBe(matches(true).length);
    const none = await page('where[views][between]=5,34&where[author][name][like]=nobody&paginate=7');
    expect(none.titles).toEqual([]);
    expect(none.meta.total).toBe(0);
  });

  it('id descending, and another order, give the same matches', async () => {
    const desc = await page(`${filter}&paginate=100&sort=id:desc`);
    expect(desc.titles).toEqual([...matches(true)].reverse());
    const byViews = await page(`${filter}&paginate=100&sort=views:desc`);
    expect(byViews.titles).toEqual([...matches(true)].reverse());
    expect(byViews.meta.total).toBe(desc.meta.total);
  });

  it('drafts: the working copies match, published or not', async () => {
    const drafts = await page(`${filter}&paginate=100&state=draft`);
    expect(drafts.titles).toEqual(matches(false));
    expect(drafts.meta.total).toBe(matches(false).length);
    expect(uuids).toHaveLength(seeded.length);
  });
});
