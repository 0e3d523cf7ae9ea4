import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { typedWorld, type TypedWorld } from './typed-world.ts';

/**
 * A typed list whose document selects none of its entries' or linked entries' metadata reads them
 * slim (src/entries/reads/read-rows.ts, RowShape); the same selection beside another root field reads
 * them whole. Both must answer alike, whatever the state, locale, page and linked drafts.
 */
const SELECTION = 'uuid title body views tags coverImage { uuid url } seo { metaTitle } author { uuid name company { name } }';

describe('typed lists read slim rows where the selection shows no metadata (PostgreSQL)', () => {
  let t: TestApp;
  let w: TypedWorld;

  beforeAll(async () => {
    t = await startTestApp();
    w = await typedWorld(t, 'Slim');
    const company = (await w.ok('mutation { createCompany(data: { name: "Acme" }, state: published) { uuid } }')).createCompany.uuid;
    const ann = (await w.ok('mutation($c: ID) { createAuthor(data: { name: "Ann", company: $c }, state: published) { uuid } }', { c: company })).createAuthor.uuid;
    await w.ok('mutation($u: ID!) { updateAuthor(uuid: $u, data: { name: "Ann (draft)" }) { uuid } }', { u: ann });
    const bob = (await w.ok('mutation { createAuthor(data: { name: "Bob" }) { uuid } }')).createAuthor.uuid;
    const post = async (body: Record<string, unknown>) => {
      const res = await w.rest('POST', '/api/posts', body);
      if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    };
    const data = (title: string, author: string) => ({ title, author, views: title.length, tags: ['a', title], body: '**bold**', 'cover-image': [w.assetUuid], seo: { 'meta-title': `${title}!` } });
    await post({ state: 'published', data: data('One', ann) });
    await post({ state: 'published', data: data('Two', bob) });
    await post({ data: data('Three (draft)', ann) });
    await post({ state: 'published', data: data('Vier', ann), locale: 'de' });
    await post({ state: 'published', data: data('Five', ann) });
  });
  afterAll(() => t.close());

  const both = async (args: string) => {
    const slim = (await w.ok(`{ posts${args} { data { ${SELECTION} } } }`)).posts;
    const full = (await w.ok(`{ posts${args} { data { ${SELECTION} } } __typename }`)).posts;
    return { slim, full };
  };

  it.each(['', '(state: draft)', '(locale: "de")', '(state: draft, locale: "de")', '(perPage: 1, page: 2)', '(state: draft, perPage: 2, page: 2)'])(
    'answers %s as the whole-row read does',
    async (args) => {
      const { slim, full } = await both(args);
      expect(slim.data.length).toBeGreaterThan(0);
      expect(slim).toEqual(full);
    },
  );

  it('shows linked published copies, drafts and missing links as the whole-row read does', async () => {
    const { slim } = await both('');
    expect(slim.data.map((p: { title: string; author: { name: string } | null }) => [p.title, p.author?.name ?? null])).toEqual([
      ['One', 'Ann'],
      ['Two', null],
      ['Vier', 'Ann'],
      ['Five', 'Ann'],
    ]);
    expect(slim.data[0].author.company).toEqual({ name: 'Acme' });
    const drafts = (await both('(state: draft)')).slim;
    expect(drafts.data.map((p: { author: { name: string } }) => p.author.name)).toEqual(['Ann (draft)', 'Bob', 'Ann (draft)', 'Ann (draft)', 'Ann (draft)']);
  });

  it('reads the metadata a selection shows', async () => {
    const data = (await w.ok('{ posts(perPage: 1) { data { title locale author { name locale isDraftDirty createdAt } } } }')).posts.data;
    expect(data[0]).toMatchObject({ title: 'One', locale: 'en', author: { name: 'Ann', locale: 'en', isDraftDirty: false } });
    expect(typeof data[0].author.createdAt).toBe('string');
    expect(data[0].author.createdAt.length).toBeGreaterThan(0);
  });
});
