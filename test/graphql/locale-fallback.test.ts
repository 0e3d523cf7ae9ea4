import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authors, collection, field, posts, world, type World } from '../helpers/world.ts';

/**
 * Reads along locale fallback chains on the typed GraphQL schema (docs/entries.md, "Locale
 * fallback"): the `fallback` argument of the list, get and singleton queries, `resolvedLocale` and
 * `requestedLocale`, relations along the chain at every level, and the GraphQL read cache.
 */
describe('locale fallback reads (typed GraphQL)', () => {
  let w: World;
  const u: Record<string, string> = {};

  async function ok(method: string, url: string, body?: unknown) {
    const res = await w.api(method, url, body);
    expect(res.status, `${method} ${url}: ${res.text}`).toBeLessThan(300);
    return res;
  }
  async function entry(slug: string, name: string, locale: string, data: Record<string, unknown>, opts: { of?: string; draft?: boolean } = {}) {
    const res = await ok('POST', `/api/${slug}`, { locale, data, ...(opts.draft ? {} : { state: 'published' }) });
    u[name] = res.body.uuid;
    if (opts.of) await ok('POST', `/api/${slug}/${u[opts.of]}/link-translation`, { translation_entry_uuid: res.body.uuid });
  }
  async function gql(query: string, variables?: Record<string, unknown>) {
    const cache = w.t.services.graphqlReadCache;
    const hits = cache?.hits ?? 0;
    const res = await w.t.graphql(query, variables, w.p.headers);
    return { body: res.body, hit: (cache?.hits ?? 0) > hits };
  }
  async function data(query: string, variables?: Record<string, unknown>) {
    const res = await gql(query, variables);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return res.body.data;
  }

  beforeAll(async () => {
    w = await world({
      project: { locales: ['en', 'de', 'de-at'], defaultLocale: 'en' },
      via: 'api',
      collections: [
        collection('countries', [field.text('label')]),
        authors(field.relation('country', 'countries')),
        posts(field.number('rank'), field.relation('author', 'authors')),
        collection('settings', [field.text('motto')], { isSingleton: true }),
      ],
    });
    await ok('PATCH', '/api/project/locales/de-at', { fallback: 'de' });
    await ok('PATCH', '/api/project/locales/de', { fallback: 'en' });

    await entry('countries', 'atEn', 'en', { label: 'Austria' });
    await entry('countries', 'atDe', 'de', { label: 'Österreich' }, { of: 'atEn' });
    await entry('authors', 'annEn', 'en', { name: 'Ann', country: u.atEn });
    await entry('authors', 'annAt', 'de-at', { name: 'Anni', country: u.atEn }, { of: 'annEn' });
    await entry('posts', 'aEn', 'en', { title: 'A en', rank: 1, author: u.annEn });
    await entry('posts', 'aDe', 'de', { title: 'A de', rank: 1, author: u.annEn }, { of: 'aEn' });
    await entry('posts', 'bEn', 'en', { title: 'B en', rank: 2 });
    await entry('posts', 'cAt', 'de-at', { title: 'C at', rank: 3 });
    await entry('posts', 'dEn', 'en', { title: 'D en', rank: 4 });
    await entry('posts', 'dDe', 'de', { title: 'D de (draft)', rank: 4 }, { of: 'dEn', draft: true });
    await ok('POST', '/api/settings', { locale: 'en', state: 'published', data: { motto: 'Hello' } });
    await ok('POST', '/api/settings', { locale: 'de', state: 'published', data: { motto: 'Hallo' } });
  }, 120_000);
  afterAll(() => w.close());

  const LIST = `query($l: String, $f: Boolean, $s: ContentState, $w: PostWhere, $p: Int, $pp: Int) {
    posts(locale: $l, fallback: $f, state: $s, where: $w, sort: [rank_ASC], page: $p, perPage: $pp) {
      data { uuid title locale resolvedLocale requestedLocale author { uuid name locale resolvedLocale country { label locale } } }
      pageInfo { total }
    }
  }`;

  it('answers each translation group once along the chain, saying which locale answered', async () => {
    const d = await data(LIST, { l: 'de-at', f: true });
    expect(d.posts.data.map((p: { title: string }) => p.title)).toEqual(['A de', 'B en', 'C at', 'D en']);
    expect(d.posts.data.map((p: { resolvedLocale: string }) => p.resolvedLocale)).toEqual(['de', 'en', 'de-at', 'en']);
    expect(d.posts.data[0]).toMatchObject({ locale: 'de', requestedLocale: 'de-at' });
    expect(d.posts.pageInfo.total).toBe(4);
  });

  it('reads as before without fallback: resolvedLocale and requestedLocale are null', async () => {
    const d = await data(LIST, { l: 'de-at' });
    expect(d.posts.data).toEqual([expect.objectContaining({ title: 'C at', resolvedLocale: null, requestedLocale: null })]);
  });

  it('draft reads, where, paging and totals apply to the resolved entries', async () => {
    const draft = await data(LIST, { l: 'de', f: true, s: 'draft' });
    expect(draft.posts.data.map((p: { title: string }) => p.title)).toEqual(['A de', 'B en', 'D de (draft)']);
    const filtered = await data(LIST, { l: 'de-at', f: true, w: { rank: { gte: 2 } }, p: 2, pp: 2 });
    expect(filtered.posts.data.map((p: { title: string }) => p.title)).toEqual(['D en']);
    expect(filtered.posts.pageInfo.total).toBe(3);
  });

  it('resolves relations along the chain at every level', async () => {
    const d = await data(LIST, { l: 'de-at', f: true });
    // A de links Ann (en); her group has a de-at entry, which links Austria (en), whose group has de.
    expect(d.posts.data[0].author).toMatchObject({ uuid: u.annAt, name: 'Anni', locale: 'de-at', resolvedLocale: 'de-at' });
    expect(d.posts.data[0].author.country).toEqual({ label: 'Österreich', locale: 'de' });
    const plain = await data(LIST, { l: 'de' });
    expect(plain.posts.data[0].author).toMatchObject({ uuid: u.annEn, name: 'Ann', resolvedLocale: null });
    expect(plain.posts.data[0].author.country).toEqual({ label: 'Austria', locale: 'en' });
  });

  it('get by uuid answers the group along the chain; the singleton too', async () => {
    const GET = 'query($u: ID!, $l: String, $f: Boolean) { post(uuid: $u, locale: $l, fallback: $f) { uuid title resolvedLocale requestedLocale } }';
    expect((await data(GET, { u: u.aEn, l: 'de-at', f: true })).post).toEqual({ uuid: u.aDe, title: 'A de', resolvedLocale: 'de', requestedLocale: 'de-at' });
    const missing = await gql(GET, { u: u.cAt, l: 'en', f: true });
    expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const single = await data('{ setting(locale: "de-at", fallback: true) { motto resolvedLocale } }');
    expect(single.setting).toEqual({ motto: 'Hallo', resolvedLocale: 'de' });
  });

  it('a cached fallback answer is dropped when the chain changes', async () => {
    const Q = '{ posts(locale: "de-at", fallback: true, sort: [rank_ASC]) { data { title } } }';
    const first = await gql(Q);
    expect(first.body.data.posts.data[0].title).toBe('A de');
    expect((await gql(Q)).hit).toBe(true);
    await ok('PATCH', '/api/project/locales/de-at', { fallback: 'en' });
    const after = await gql(Q);
    expect(after.hit).toBe(false);
    expect(after.body.data.posts.data[0].title).toBe('A en');
    await ok('PATCH', '/api/project/locales/de-at', { fallback: 'de' });
  });

  it('shows the arguments in the typed schema', async () => {
    const d = await data('{ __type(name: "Query") { fields { name args { name type { name } } } } }');
    const list = d.__type.fields.find((f: { name: string }) => f.name === 'posts');
    expect(list.args).toContainEqual({ name: 'fallback', type: { name: 'Boolean' } });
    const get = d.__type.fields.find((f: { name: string }) => f.name === 'post');
    expect(get.args).toContainEqual({ name: 'fallback', type: { name: 'Boolean' } });
  });
});
