import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collection, field, world, type World } from '../../helpers/world.ts';
import { BULK_URL } from './helpers.ts';

/**
 * The search vectors that the bulk writes leave (docs/filtering.md, "Search"): every bulk create,
 * draft save, publish and unpublish is searchable in the draft and published views as soon as it
 * answers, and each stored vector is exactly the text of its copy (title A, slug B, long text and
 * markdown D, in the entry's language), whether the write runs with the write-scope lock (a unique
 * slug) or without it.
 */
describe('search after bulk writes', () => {
  let w: World;
  beforeAll(async () => {
    w = await world({
      project: { locales: ['en', 'fr'], defaultLocale: 'en' },
      collections: [
        collection('notes', [
          field.text('title'),
          { name: 'slug', type: 'slug', validations: { unique: { status: true } } },
          { name: 'body', type: 'longtext' },
          { name: 'intro', type: 'richtext', options: { editor: { outputFormat: 'markdown' } } },
          field.number('views'),
        ]),
        collection('memos', [field.text('title'), { name: 'body', type: 'longtext' }]),
      ],
    });
  }, 60_000);
  afterAll(() => w?.close());

  const uuidsOf = (body: Array<{ uuid: string }>) => body.map((e) => e.uuid).sort();
  const search = async (slug: string, text: string, extra = '') => {
    const res = await w.api('GET', `/api/${slug}?search=${encodeURIComponent(text)}${extra}`);
    expect(res.status, res.text).toBe(200);
    return uuidsOf(res.body);
  };
  const sorted = (...u: string[]) => [...u].sort();

  /** Rows of the project whose stored vectors differ from the vectors of their copies, derived independently. */
  const staleVectors = async (): Promise<unknown[]> =>
    w.t.database.prisma.$queryRawUnsafe(
      `WITH x AS (
         SELECT e.uuid, e.search_draft, e.search_published, e.data, e.published_data,
                CASE split_part(e.locale, '-', 1) WHEN 'fr' THEN 'french'::regconfig ELSE 'english'::regconfig END AS cfg
           FROM entries e WHERE e.project_id = $1
       ), expected AS (
         SELECT uuid, search_draft, search_published, cfg, data, published_data,
           (SELECT setweight(to_tsvector(cfg, coalesce(d ->> 'title', '')), 'A') || setweight(to_tsvector(cfg, coalesce(d ->> 'slug', '')), 'B')
                || setweight(to_tsvector(cfg, concat_ws(' ', d ->> 'body',
                     regexp_replace(regexp_replace(d ->> 'intro', '!?\\[([^]]*)\\]\\([^)]*\\)', '\\1', 'g'), '<[^>]*>|[\`*_#>~|]', ' ', 'g'))), 'D')
              FROM (SELECT data AS d) s) AS want_draft,
           (SELECT CASE WHEN d IS NULL THEN NULL ELSE setweight(to_tsvector(cfg, coalesce(d ->> 'title', '')), 'A') || setweight(to_tsvector(cfg, coalesce(d ->> 'slug', '')), 'B')
                || setweight(to_tsvector(cfg, concat_ws(' ', d ->> 'body',
                     regexp_replace(regexp_replace(d ->> 'intro', '!?\\[([^]]*)\\]\\([^)]*\\)', '\\1', 'g'), '<[^>]*>|[\`*_#>~|]', ' ', 'g'))), 'D') END
              FROM (SELECT published_data AS d) s) AS want_published
         FROM x
       )
       SELECT uuid::text FROM expected
        WHERE search_draft IS DISTINCT FROM want_draft OR search_published IS DISTINCT FROM want_published`,
      w.p.id,
    );

  it('bulk create: published items in both views, drafts in the draft view only, each vector exact', async () => {
    const res = await w.api('POST', BULK_URL('notes'), {
      items: [
        { state: 'published', data: { title: 'Lighthouse keepers', slug: 'lighthouse', body: 'Stories of the northern coast', intro: 'See [the harbour](https://example.com/x) **today**' } },
        { state: 'published', data: { title: 'Harbour walks', slug: 'harbour', body: 'Ferries, cranes and gulls', views: 3 } },
        { data: { title: 'Unreleased coastline guide', slug: 'coastline', body: 'Cliffs and coves' } },
        { state: 'published', locale: 'fr', data: { title: 'Les chevaux mangeaient', slug: 'chevaux', body: 'des pommes' } },
      ],
    });
    expect(res.status, res.text).toBe(201);
    const [light, harbour, coast, horses] = res.body.data.map((e: { uuid: string }) => e.uuid);
    expect(await search('notes', 'harbour')).toEqual(sorted(light, harbour));
    expect(await search('notes', 'coastline')).toEqual([]);
    expect(await search('notes', 'coastline', '&state=draft')).toEqual([coast]);
    expect(await search('notes', 'cheval', '&locale=fr')).toEqual([horses]);
    // Link targets are not text; the slug is.
    expect(await search('notes', 'example')).toEqual([]);
    expect(await search('notes', 'lighthouse')).toEqual([light]);
    expect(await staleVectors()).toEqual([]);
  });

  it('bulk update: a draft save moves the draft view only; publishing moves the published view; unpublishing leaves it', async () => {
    const made = await w.api('POST', BULK_URL('notes'), {
      items: [
        { state: 'published', data: { title: 'Orchard diary', slug: 'orchard', body: 'Apples in autumn' } },
        { state: 'published', data: { title: 'Vineyard diary', slug: 'vineyard', body: 'Grapes in autumn' } },
        { state: 'published', data: { title: 'Meadow diary', slug: 'meadow', body: 'Grass in spring' } },
      ],
    });
    expect(made.status, made.text).toBe(201);
    const [orchard, vineyard, meadow] = made.body.data.map((e: { uuid: string }) => e.uuid);

    const saved = await w.api('PATCH', BULK_URL('notes'), { items: [{ uuid: orchard, data: { body: 'Pears in winter' } }] });
    expect(saved.status, saved.text).toBe(200);
    expect(await search('notes', 'pears', '&state=draft')).toEqual([orchard]);
    expect(await search('notes', 'pears')).toEqual([]);
    expect(await search('notes', 'apples')).toEqual([orchard]);
    expect(await search('notes', 'apples', '&state=draft')).toEqual([]);

    const published = await w.api('PATCH', BULK_URL('notes'), {
      items: [
        { uuid: orchard, state: 'published', data: {} },
        { uuid: vineyard, state: 'published', data: { title: 'Winery notes', slug: 'winery' } },
        { uuid: meadow, state: 'draft', data: {} },
      ],
    });
    expect(published.status, published.text).toBe(200);
    expect(await search('notes', 'pears')).toEqual([orchard]);
    expect(await search('notes', 'apples')).toEqual([]);
    expect(await search('notes', 'winery')).toEqual([vineyard]);
    expect(await search('notes', 'vineyard')).toEqual([]);
    expect(await search('notes', 'meadow')).toEqual([]);
    expect(await search('notes', 'meadow', '&state=draft')).toEqual([meadow]);
    expect(await staleVectors()).toEqual([]);
  });

  it('a collection without unique fields (the lock-free bulk paths) keeps its vectors exact too', async () => {
    const made = await w.api('POST', BULK_URL('memos'), {
      items: [{ state: 'published', data: { title: 'Tide tables', body: 'High water at noon' } }, { data: { title: 'Storm warning', body: 'Gale force winds' } }],
    });
    expect(made.status, made.text).toBe(201);
    const [tide, storm] = made.body.data.map((e: { uuid: string }) => e.uuid);
    const updated = await w.api('PATCH', BULK_URL('memos'), { items: [{ uuid: tide, state: 'published', data: { body: 'Low water at dusk' } }, { uuid: storm, state: 'published', data: {} }] });
    expect(updated.status, updated.text).toBe(200);
    expect(await search('memos', 'dusk')).toEqual([tide]);
    expect(await search('memos', 'noon')).toEqual([]);
    expect(await search('memos', 'gale')).toEqual([storm]);
    expect(await staleVectors()).toEqual([]);
  });
});
