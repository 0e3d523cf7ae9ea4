import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../src/db/client.ts';
import { searchScore } from '../../src/entries/reads/search.ts';
import { compileSearch } from '../../src/filtering/search/compile.ts';
import { parseSearch } from '../../src/filtering/search/parse.ts';
import { collection, field, world, type World } from '../helpers/world.ts';

/**
 * Full-text search (docs/filtering.md, "Search") through REST and the typed GraphQL list, on
 * PostgreSQL and embedded PGlite: ranking, stemming per locale, phrases, exclusions, prefixes, fields
 * that are never searched, and the combination with where, state, locale, paging and totals.
 */
for (const embedded of [false, true]) describe(`full-text search (${embedded ? 'PGlite' : 'PostgreSQL'})`, () => {
  let w: World;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    w = await world({
      app: { embedded },
      project: { name: 'Search', locales: ['en', 'fr'], defaultLocale: 'en' },
      via: 'api',
      collections: [
        collection('articles', [
          field.text('title'),
          { name: 'summary', type: 'longtext' },
          { name: 'body', type: 'richtext', options: { editor: { outputFormat: 'markdown' } } },
          field.text('category'),
          field.hidden('secret'),
          field.text('notes', { options: { searchable: false } }),
          field.number('rank'),
        ]),
      ],
      tokens: { reader: ['read'] },
    });
    const make = async (key: string, data: Record<string, unknown>, opts: { locale?: string; state?: string } = {}) => {
      const res = await w.api('POST', '/api/articles', { data, state: opts.state ?? 'published', locale: opts.locale ?? 'en' });
      expect(res.status, res.text).toBe(201);
      ids[key] = res.body.uuid;
    };
    await make('marathon', { title: 'Running shoes for marathon runners', body: 'A long **distance** guide', category: 'sport', rank: 1 });
    await make('kitchen', { title: 'Kitchen knives', body: 'Sharpening guide; keep running water away from your shoes', category: 'home', rank: 2 });
    await make('repair', { title: 'Shoe repair', summary: 'We repair running shoes quickly', category: 'sport', rank: 3 });
    await make('hidden', { title: 'Plain page', secret: 'zanzibar', notes: 'quixotic', category: 'misc', rank: 4 });
    await make('link', { title: 'Links', body: 'See [the harbour](https://example.com/lighthouse) today', category: 'misc', rank: 5 });
    await make('horses', { title: 'Les chevaux mangeaient des pommes', category: 'animaux', rank: 6 }, { locale: 'fr' });
    await make('draft', { title: 'Unreleased running gadget', category: 'sport', rank: 7 }, { state: 'draft' });
  }, 120_000);
  afterAll(() => w?.close());

  const search = async (query: string) => {
    const res = await w.api('GET', `/api/articles?${query}`);
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const uuids = (list: Array<{ uuid: string }>) => list.map((e) => e.uuid);
  const q = (text: string) => `search=${encodeURIComponent(text)}`;

  it('ranks by relevance (a title match above a body match) and gives each entry its score', async () => {
    const list = await search(q('running shoes'));
    expect(uuids(list)).toEqual([ids.marathon, ids.repair, ids.kitchen]);
    const scores = list.map((e: { meta: { score: number } }) => e.meta.score);
    expect(scores.every((s: number) => s > 0)).toBe(true);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(scores[0]).toBeGreaterThan(scores[2]);
  });

  it('stems in the language of the entry: English', async () => {
    expect(uuids(await search(q('runs')))).toEqual(expect.arrayContaining([ids.marathon, ids.kitchen, ids.repair]));
    expect(uuids(await search(q('shoe')))).toHaveLength(3);
    expect(uuids(await search(q('sharpened')))).toEqual([ids.kitchen]);
  });

  it('stems in the language of the entry: French', async () => {
    expect(uuids(await search(`${q('cheval')}&locale=fr`))).toEqual([ids.horses]);
    expect(uuids(await search(`${q('manger pomme')}&locale=fr`))).toEqual([ids.horses]);
    // Without a locale each entry is searched in its own language.
    expect(uuids(await search(q('cheval')))).toEqual([ids.horses]);
    // English does not stem "chevaux" to "cheval".
    expect(await search(`${q('cheval')}&locale=en`)).toEqual([]);
  });

  it('matches a phrase only as written', async () => {
    expect(uuids(await search(q('"running shoes"')))).toEqual([ids.marathon, ids.repair]);
    expect(await search(q('"shoes running"'))).toEqual([]);
  });

  it('excludes -words and -"phrases"', async () => {
    expect(uuids(await search(q('running -kitchen')))).toEqual([ids.marathon, ids.repair]);
    expect(uuids(await search(q('shoes -"running shoes"')))).toEqual([ids.kitchen]);
  });

  it('matches prefixes and offers alternatives with or', async () => {
    expect(uuids(await search(q('marath*')))).toEqual([ids.marathon]);
    expect(uuids(await search(q('sharp* knive*')))).toEqual([ids.kitchen]);
    expect(uuids(await search(q('marathon or knives'))).sort()).toEqual([ids.marathon, ids.kitchen].sort());
  });

  it('reads rich text as plain text: link text is searched, link targets are not', async () => {
    expect(uuids(await search(q('harbour')))).toEqual([ids.link]);
    expect(await search(q('lighthouse'))).toEqual([]);
  });

  it('never matches a hidden field or a field with searchable: false', async () => {
    expect(await search(q('zanzibar'))).toEqual([]);
    expect(await search(`${q('zanzibar')}&state=draft`)).toEqual([]);
    expect(await search(q('quixotic'))).toEqual([]);
    expect((await search(`${q('zanzibar')}&count=1`)).count).toBe(0);
  });

  it('combines with where, state, locale, sort, paging and totals', async () => {
    expect(uuids(await search(`${q('running')}&where[category]=sport`))).toEqual([ids.marathon, ids.repair]);
    // Drafts are searched in their own view.
    expect(uuids(await search(`${q('gadget')}`))).toEqual([]);
    expect(uuids(await search(`${q('gadget')}&state=draft`))).toEqual([ids.draft]);
    expect(uuids(await search(`${q('running')}&locale=fr`))).toEqual([]);
    // An explicit sort wins over relevance; scores are still given.
    const sorted = await search(`${q('running shoes')}&sort=rank:desc`);
    expect(uuids(sorted)).toEqual([ids.repair, ids.kitchen, ids.marathon]);
    expect(sorted[0].meta.score).toBeGreaterThan(0);
    const page = await search(`${q('running shoes')}&paginate=1&page=2`);
    expect(uuids(page.data)).toEqual([ids.repair]);
    expect(page.meta.total).toBe(3);
    expect(page.data[0].meta.score).toBeGreaterThan(0);
    expect((await search(`${q('running shoes')}&count=1`)).count).toBe(3);
    expect((await search(`${q('running shoes')}&first=1`)).uuid).toBe(ids.marathon);
    expect(uuids(await search(`${q('running shoes')}&limit=1&offset=1`))).toEqual([ids.repair]);
    // No search: no score.
    expect((await search('where[category]=home'))[0].meta).toBeUndefined();
  });

  it('follows edits: a saved draft is searched in the draft view, the published view keeps the published text', async () => {
    const res = await w.api('PUT', `/api/articles/${ids.repair}`, { data: { title: 'Shoe repair', summary: 'We mend boots', category: 'sport', rank: 3 } });
    expect(res.status, res.text).toBeLessThan(300);
    expect(uuids(await search(q('boots')))).toEqual([]);
    expect(uuids(await search(`${q('boots')}&state=draft`))).toEqual([ids.repair]);
    await w.api('PUT', `/api/articles/${ids.repair}`, { data: { title: 'Shoe repair', summary: 'We repair running shoes quickly', category: 'sport', rank: 3 } });
  });

  it('re-derives the vectors when a field stops or starts being searched', async () => {
    const fields = (await w.api('GET', '/api/collections/articles')).body.fields as Array<{ uuid: string; name: string }>;
    const notes = fields.find((f) => f.name === 'notes')!;
    const put = (options: Record<string, unknown>) =>
      w.api('PUT', `/api/collections/articles/fields/${notes.uuid}`, { type: 'text', label: 'Notes', name: 'notes', options });
    expect((await put({ searchable: true })).status).toBe(200);
    expect(uuids(await search(q('quixotic')))).toEqual([ids.hidden]);
    expect((await put({ hiddenInAPI: true })).status).toBe(200);
    expect(await search(q('quixotic'))).toEqual([]);
    expect((await put({ searchable: false })).status).toBe(200);
    expect(await search(q('quixotic'))).toEqual([]);
    // Only text-like fields take the option.
    const bad = await w.api('POST', '/api/collections/articles/fields', { type: 'number', label: 'N', name: 'n', options: { searchable: false } });
    expect(bad.status).toBe(422);
  });

  it('serves the typed GraphQL list with searchScore', async () => {
    const res = await w.t.graphql(
      `query($s: String) { articles(search: $s, perPage: 2) { data { uuid title searchScore } pageInfo { total } } }`,
      { s: 'running shoes' },
      w.p.headers,
    );
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    const page = res.body.data.articles;
    expect(page.pageInfo.total).toBe(3);
    expect(page.data.map((e: { uuid: string }) => e.uuid)).toEqual([ids.marathon, ids.repair]);
    expect(page.data[0].searchScore).toBeGreaterThan(page.data[1].searchScore);
    const plain = await w.t.graphql('{ articles(perPage: 1) { data { searchScore } } }', undefined, w.p.headers);
    expect(plain.body.data.articles.data[0].searchScore).toBeNull();
    const fr = await w.t.graphql('{ articles(search: "chevaux", locale: "fr") { data { uuid } } }', undefined, w.p.headers);
    expect(fr.body.data.articles.data).toEqual([{ uuid: ids.horses }]);
  });

  it('REST meta.score and GraphQL searchScore are the same value for the same search', async () => {
    for (const text of ['running shoes', 'guide', 'shoe or knives', 'run*']) {
      const rest = await search(`${q(text)}&paginate=50`);
      const res = await w.t.graphql(`query($s: String) { articles(search: $s, perPage: 50) { data { uuid searchScore } } }`, { s: text }, w.p.headers);
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      const restScores = (rest.data ?? rest).map((e: { uuid: string; meta: { score: number } }) => [e.uuid, e.meta.score]);
      const gqlScores = res.body.data.articles.data.map((e: { uuid: string; searchScore: number }) => [e.uuid, e.searchScore]);
      expect(gqlScores, text).toEqual(restScores);
      // Every digit of PostgreSQL's float4 rank, as PostgreSQL itself prints it (not 6 digits).
      const parsed = parseSearch(text)!;
      const { score } = compileSearch(parsed, { alias: 'e', column: 'search_published', locales: ['en', 'fr'] });
      const uuids = restScores.map((r: unknown[]) => r[0] as string);
      const stored = await w.t.database.prisma.$queryRaw<Array<{ uuid: string; score: string }>>(
        Prisma.sql`SELECT e.uuid::text AS uuid, (${score})::float4::text AS score FROM entries e WHERE e.uuid = ANY(${uuids}::uuid[])`,
      );
      const exact = new Map(stored.map((r) => [r.uuid, Number(r.score)]));
      expect(restScores, text).toEqual(restScores.map(([uuid]: unknown[]) => [uuid, exact.get(uuid as string)]));
    }
  });

  it('a score keeps the float4 PostgreSQL computed, to its last digit', () => {
    expect(searchScore(0.10000000149011612)).toBe(0.1);
    expect(searchScore(Math.fround(0.13636364))).toBe(0.13636364);
    // Two neighbouring float4 values stay two scores (6 digits made them one).
    const a = Math.fround(0.1234567);
    const b = Math.fround(a + 2 ** -26);
    expect(a).not.toBe(b);
    expect(searchScore(a)).not.toBe(searchScore(b));
    expect(Math.fround(searchScore(b))).toBe(b);
    expect(searchScore(null)).toBe(0);
  });

  const HOSTILE = [
    "'", "''", '"', '"""', '\\', '\\\\\'', ':*', '&', '|', '!', '(', ')', '!!(', 'a & b', 'a | !b', "run:* & (shoe | 'x')", '-', '--', '-"', '*', '**',
    'or', 'or or', 'running or', '\u0000', 'run\u0000ning', 'a'.repeat(500), 'word '.repeat(32), '\u{1F600}*', 'é*', "l'été*", '<->', 'a <-> b', ':A', 'x:*A',
    '$1', "'; DROP TABLE entries; --", '%', '_', 'the', 'the*',
  ];
  it.each(HOSTILE.map((h) => [JSON.stringify(h).slice(0, 40), h]))('hostile input %s is an answer, never a 500', async (_label, text) => {
    for (const url of [`/api/articles?${q(text)}`, `/api/articles?${q(text)}&state=draft&paginate=5`, `/api/articles?${q(text)}&locale=fr&count=1`]) {
      const res = await w.api('GET', url);
      expect([200, 422], `${url}: ${res.text}`).toContain(res.status);
    }
    const gql = await w.t.graphql('query($s: String) { articles(search: $s) { data { uuid } pageInfo { total } } }', { s: text }, w.p.headers);
    expect(gql.status).toBeLessThan(500);
  });

  it('refuses a search that is too long, has too many terms or is not one text (422 on search)', async () => {
    for (const url of [`/api/articles?${q('a'.repeat(501))}`, `/api/articles?${q('w '.repeat(33))}`, '/api/articles?search[]=a&search[]=b']) {
      const res = await w.api('GET', url);
      expect(res.status, url).toBe(422);
      expect(res.body.errors.search).toBeDefined();
    }
    // Nothing to search for is no search; nothing searchable matches nothing.
    expect(await search(q('   '))).toHaveLength(7 - 1);
    expect(await search(q('!!!'))).toEqual([]);
  });
});
