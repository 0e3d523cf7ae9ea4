import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authors, collection, field, posts, world, type World } from '../../helpers/world.ts';

/**
 * Reads along locale fallback chains (docs/entries.md, "Locale fallback"), over REST: the chain
 * de-at → de → en, with translations missing at each step, draft vs published, where/sort/paging/
 * totals on the resolved entries, relations along the chain, and the read cache.
 */
// The same statements on both stores: PGlite serves embedded mode.
for (const embedded of [false, true]) describe(`locale fallback reads (REST, ${embedded ? 'PGlite' : 'PostgreSQL'})`, () => {
  let w: World;
  const u: Record<string, string> = {};

  async function ok(method: string, url: string, body?: unknown) {
    const res = await w.api(method, url, body);
    expect(res.status, `${method} ${url}: ${res.text}`).toBeLessThan(300);
    return res;
  }
  /** An entry in `locale`, linked as a translation of `of` when given. */
  async function entry(slug: string, name: string, locale: string, data: Record<string, unknown>, opts: { of?: string; draft?: boolean } = {}) {
    const res = await ok('POST', `/api/${slug}`, { locale, data, ...(opts.draft ? {} : { state: 'published' }) });
    u[name] = res.body.uuid;
    if (opts.of) await ok('POST', `/api/${slug}/${u[opts.of]}/link-translation`, { translation_entry_uuid: res.body.uuid });
    return res.body.uuid as string;
  }
  const titles = (body: Array<{ fields: { title: string } }>) => body.map((e) => e.fields.title);

  beforeAll(async () => {
    w = await world({
      app: { embedded },
      project: { locales: ['en', 'de', 'de-at', 'fr'], defaultLocale: 'en' },
      collections: [authors(), posts(field.number('rank'), field.relation('author', 'authors')), collection('notes', [field.text('title')])],
    });
    await ok('PATCH', '/api/project/locales/de-at', { fallback: 'de' });
    await ok('PATCH', '/api/project/locales/de', { fallback: 'en' });

    await entry('authors', 'annEn', 'en', { name: 'Ann' });
    await entry('authors', 'annDe', 'de', { name: 'Anna' }, { of: 'annEn' });
    await entry('authors', 'bobEn', 'en', { name: 'Bob' });
    await entry('authors', 'zoeFr', 'fr', { name: 'Zoé' });

    // A: every locale; B: en and de; C: en only; D: de-at only; E: fr only; F: en published, de a draft.
    await entry('posts', 'aEn', 'en', { title: 'A en', rank: 1, author: u.annEn });
    await entry('posts', 'aDe', 'de', { title: 'A de', rank: 1, author: u.annEn }, { of: 'aEn' });
    await entry('posts', 'aAt', 'de-at', { title: 'A at', rank: 1, author: u.bobEn }, { of: 'aEn' });
    await entry('posts', 'bEn', 'en', { title: 'B en', rank: 2 });
    await entry('posts', 'bDe', 'de', { title: 'B de', rank: 2 }, { of: 'bEn' });
    await entry('posts', 'cEn', 'en', { title: 'C en', rank: 3, author: u.annEn });
    await entry('posts', 'dAt', 'de-at', { title: 'D at', rank: 4, author: u.zoeFr });
    await entry('posts', 'eFr', 'fr', { title: 'E fr', rank: 5 });
    await entry('posts', 'fEn', 'en', { title: 'F en', rank: 6 });
    await entry('posts', 'fDe', 'de', { title: 'F de (draft)', rank: 6 }, { of: 'fEn', draft: true });
    // PGlite starts and migrates in process: slow when the host is busy.
  }, 240_000);
  afterAll(() => w?.close());

  it('shows each locale\'s fallback on GET /api and GET /api/project', async () => {
    for (const url of ['/api', '/api/project']) {
      const res = await ok('GET', url);
      expect(res.body.locales).toEqual(['en', 'de', 'de-at', 'fr']);
      expect(res.body.locale_fallbacks).toEqual({ 'de-at': 'de', de: 'en' });
    }
  });

  it('answers each translation group once, from the first locale of the chain that has it', async () => {
    const res = await ok('GET', '/api/posts?locale=de-at&fallback=true&sort=rank:asc');
    expect(titles(res.body)).toEqual(['A at', 'B de', 'C en', 'D at', 'F en']);
    expect(res.body.map((e: { locale: string }) => e.locale)).toEqual(['de-at', 'de', 'en', 'de-at', 'en']);
    for (const e of res.body) expect(e.meta).toEqual({ requested_locale: 'de-at' });
    // One step down the chain: de → en.
    expect(titles((await ok('GET', '/api/posts?locale=de&fallback=true&sort=rank:asc')).body)).toEqual(['A de', 'B de', 'C en', 'F en']);
    // A locale without a fallback is a chain of one.
    expect(titles((await ok('GET', '/api/posts?locale=fr&fallback=true')).body)).toEqual(['E fr']);
  });

  it('reads exactly as before without fallback', async () => {
    const res = await ok('GET', '/api/posts?locale=de-at&sort=rank:asc');
    expect(titles(res.body)).toEqual(['A at', 'D at']);
    expect(res.body[0].meta).toBeUndefined();
    expect((await ok('GET', '/api/posts?locale=de-at&fallback=false')).body).toHaveLength(2);
  });

  it('follows the default locale\'s chain when no locale is given', async () => {
    const res = await ok('GET', '/api/posts?fallback=true&sort=rank:asc');
    expect(titles(res.body)).toEqual(['A en', 'B en', 'C en', 'F en']);
    expect(res.body[0].meta).toEqual({ requested_locale: 'en' });
  });

  it('a draft read falls back only where no draft exists', async () => {
    const res = await ok('GET', '/api/posts?locale=de-at&fallback=true&state=draft&sort=rank:asc');
    expect(titles(res.body)).toEqual(['A at', 'B de', 'C en', 'D at', 'F de (draft)']);
  });

  it('applies where, sort, paging and totals to the resolved entries', async () => {
    // `A en` and `A de` match rank 1 too, but the group resolves to `A at`, once.
    const one = await ok('GET', '/api/posts?locale=de-at&fallback=true&where[rank][lte]=2&sort=title:desc');
    expect(titles(one.body)).toEqual(['B de', 'A at']);
    // A title only an entry the chain skips has matches nothing: the group answered with another.
    expect((await ok('GET', '/api/posts?locale=de-at&fallback=true&where[title][eq]=A%20en')).body).toEqual([]);
    const page = await ok('GET', '/api/posts?locale=de-at&fallback=true&sort=rank:desc&paginate=2&page=2');
    expect(titles(page.body.data)).toEqual(['C en', 'B de']);
    expect(page.body.meta.total).toBe(5);
    expect(page.body.meta.last_page).toBe(3);
    const filtered = await ok('GET', '/api/posts?locale=de-at&fallback=true&where[rank][gte]=3&sort=rank:asc&paginate=2');
    expect(filtered.body.meta.total).toBe(3);
    expect(titles(filtered.body.data)).toEqual(['C en', 'D at']);
    expect((await ok('GET', '/api/posts?locale=de-at&fallback=true&count=1')).body).toEqual({ count: 5 });
    expect(titles((await ok('GET', '/api/posts?locale=de-at&fallback=true&sort=rank:asc&limit=2&offset=1')).body)).toEqual(['B de', 'C en']);
    expect((await ok('GET', '/api/posts?locale=de-at&fallback=true&sort=rank:asc&first=1')).body.fields.title).toBe('A at');
  });

  it('resolves relations along the same chain', async () => {
    const res = await ok('GET', '/api/posts?locale=de&fallback=true&sort=rank:asc');
    // A de links Ann (en), whose group has a de entry; C en links Ann as well.
    expect(res.body[0].fields.author).toMatchObject({ uuid: u.annDe, locale: 'de', fields: { name: 'Anna' } });
    expect(res.body[2].fields.author).toMatchObject({ uuid: u.annDe, fields: { name: 'Anna' } });
    // Without fallback, the linked entry as stored.
    expect((await ok('GET', `/api/posts/${u.cEn}`)).body.fields.author).toMatchObject({ uuid: u.annEn, fields: { name: 'Ann' } });
    // Bob has only en, which the chain reaches: shown as linked.
    const at = await ok('GET', '/api/posts?locale=de-at&fallback=true&sort=rank:asc&limit=1');
    expect(at.body[0].fields.author).toMatchObject({ uuid: u.bobEn, locale: 'en' });
    // Zoé has only fr, which the chain never reaches: shown as linked as well (nothing better).
    const d = await ok('GET', `/api/posts/${u.dAt}?locale=de-at&fallback=true`);
    expect(d.body.fields.author).toMatchObject({ uuid: u.zoeFr, locale: 'fr', meta: { requested_locale: 'de-at' } });
  });

  it('GET by uuid answers the entry\'s translation group along the chain', async () => {
    // Any entry of group B names the group: de-at has none, de answers.
    for (const name of ['bEn', 'bDe']) {
      const res = await ok('GET', `/api/posts/${u[name]}?locale=de-at&fallback=true`);
      expect(res.body).toMatchObject({ uuid: u.bDe, locale: 'de', meta: { requested_locale: 'de-at' } });
    }
    expect((await ok('GET', `/api/posts/${u.aEn}?locale=de-at&fallback=1`)).body.uuid).toBe(u.aAt);
    expect((await ok('GET', `/api/posts/${u.fDe}?locale=de&fallback=true`)).body.uuid).toBe(u.fEn);
    expect((await ok('GET', `/api/posts/${u.fEn}?locale=de&fallback=true&state=draft`)).body.uuid).toBe(u.fDe);
    // Nothing of the group along the chain.
    expect((await w.api('GET', `/api/posts/${u.eFr}?locale=de-at&fallback=true`)).status).toBe(404);
    // Without fallback, as before: the entry must have the locale.
    expect((await w.api('GET', `/api/posts/${u.bEn}?locale=de-at`)).status).toBe(404);
    const both = await w.api('GET', `/api/posts/${u.bEn}?locale=de&fallback=true&translation_locale=de`);
    expect(both.status).toBe(422);
    expect(both.body.errors.fallback).toBeDefined();
  });

  it('answers a group holding two entries of one locale once, with the older entry', async () => {
    // Linking refuses such a group; data written before that rule (or by hand) may still hold one.
    await w.collection({ slug: 'pages', fields: [field.text('title')] });
    await entry('pages', 'pEn', 'en', { title: 'P en' });
    await entry('pages', 'pDe', 'de', { title: 'P de' }, { of: 'pEn' });
    await entry('pages', 'pDe2', 'de', { title: 'P de again' });
    await w.t.database.prisma.$executeRaw`UPDATE entries SET translation_group_id = (SELECT translation_group_id FROM entries WHERE uuid = ${u.pEn}::uuid) WHERE uuid = ${u.pDe2}::uuid`;
    const page = await ok('GET', '/api/pages?locale=de-at&fallback=true&paginate=10');
    expect(titles(page.body.data)).toEqual(['P de']);
    expect(page.body.meta.total).toBe(1);
    expect((await ok('GET', '/api/pages?locale=de-at&fallback=true&count=1')).body).toEqual({ count: 1 });
    expect((await ok('GET', `/api/pages/${u.pDe2}?locale=de-at&fallback=true`)).body.uuid).toBe(u.pDe);
  });

  it('drops cached fallback reads when a fallback changes and when a locale along the chain changes', async () => {
    const url = '/api/notes?locale=de-at&fallback=true&sort=title:asc';
    await entry('notes', 'nEn', 'en', { title: 'note en' });
    expect(titles((await ok('GET', url)).body)).toEqual(['note en']);
    const hit = await ok('GET', url);
    expect(hit.headers['x-cache']).toBe('HIT');
    // A translation published in a locale along the chain: the cached answer goes.
    await entry('notes', 'nDe', 'de', { title: 'note de' }, { of: 'nEn' });
    const after = await ok('GET', url);
    expect(after.headers['x-cache']).not.toBe('HIT');
    expect(titles(after.body)).toEqual(['note de']);
    expect((await ok('GET', url)).headers['x-cache']).toBe('HIT');
    // The chain changes: de-at now falls back to en directly.
    await ok('PATCH', '/api/project/locales/de-at', { fallback: 'en' });
    const rechained = await ok('GET', url);
    expect(rechained.headers['x-cache']).not.toBe('HIT');
    expect(titles(rechained.body)).toEqual(['note en']);
    await ok('PATCH', '/api/project/locales/de-at', { fallback: 'de' });
    expect(titles((await ok('GET', url)).body)).toEqual(['note de']);
  });
});

describe('locale fallbacks (project locales)', () => {
  let w: World;
  beforeAll(async () => {
    w = await world({ project: { locales: ['en', 'de', 'de-at'] }, tokens: { reader: ['read'] } });
  }, 60_000);
  afterAll(() => w.close());

  it('sets, chains and clears fallbacks; admin only', async () => {
    const set = await w.api('PATCH', '/api/project/locales/de-at', { fallback: 'de' });
    expect(set.status).toBe(200);
    expect(set.body.locale_fallbacks).toEqual({ 'de-at': 'de' });
    expect((await w.api('PATCH', '/api/project/locales/DE', { fallback: 'EN' })).body.locale_fallbacks).toEqual({ 'de-at': 'de', de: 'en' });
    expect((await w.api('PATCH', '/api/project/locales/de', { fallback: 'en' }, w.tokens.reader)).status).toBe(403);
    const cleared = await w.api('PATCH', '/api/project/locales/de', { fallback: null });
    expect(cleared.body.locale_fallbacks).toEqual({ 'de-at': 'de' });
    expect((await w.api('PATCH', '/api/project/locales/de', { fallback: 'en' })).status).toBe(200);
  });

  it('refuses cycles and unknown locales with 422 naming the problem', async () => {
    const cycle = await w.api('PATCH', '/api/project/locales/en', { fallback: 'de-at' });
    expect(cycle.status).toBe(422);
    expect(cycle.body.errors.fallback[0]).toContain('en → de-at → de → en');
    const self = await w.api('PATCH', '/api/project/locales/en', { fallback: 'en' });
    expect(self.status).toBe(422);
    expect(self.body.errors.fallback[0]).toContain('itself');
    const unknownTarget = await w.api('PATCH', '/api/project/locales/en', { fallback: 'fr' });
    expect(unknownTarget.status).toBe(422);
    expect(unknownTarget.body.errors.fallback[0]).toContain("'fr'");
    const unknownLocale = await w.api('PATCH', '/api/project/locales/fr', { fallback: 'en' });
    expect(unknownLocale.status).toBe(422);
    expect(unknownLocale.body.errors.locale[0]).toContain("'fr'");
    const malformed = await w.api('PATCH', '/api/project/locales/en', { fallback: 42 });
    expect(malformed.status).toBe(422);
    expect(malformed.body.errors.fallback).toBeDefined();
    expect((await w.api('PATCH', '/api/project/locales/en', {})).status).toBe(422);
    // Nothing changed.
    expect((await w.api('GET', '/api')).body.locale_fallbacks).toEqual({ 'de-at': 'de', de: 'en' });
  });

  it('refuses to remove a locale another one falls back to; a removed locale takes its own fallback along', async () => {
    const refused = await w.api('DELETE', '/api/project/locales/de');
    expect(refused.status).toBe(422);
    expect(refused.body.errors.locale[0]).toContain("'de-at'");
    const removed = await w.api('DELETE', '/api/project/locales/de-at');
    expect(removed.status).toBe(200);
    expect(removed.body.locale_fallbacks).toEqual({ de: 'en' });
    // Added back, it has no fallback.
    expect((await w.api('POST', '/api/project/locales', { locale: 'de-at' })).body.locale_fallbacks).toEqual({ de: 'en' });
  });
});
