import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordStatements } from '../helpers/sql-count.ts';
import { world, authors, posts, collection, field, type World } from '../helpers/world.ts';

/**
 * A typed list that is its operation's only root field and shows plain values reads only those values
 * (src/entries/reads/selected-slice.ts, chosen in src/graphql/schema/typed/operations/selected-values.ts).
 * Its answers must be the whole-entry read's: the same document beside a second root field
 * (`__typename`) reads whole entries, and both must agree for every link a relation can hold.
 */
describe('typed lists read only the values they show', () => {
  let w: World;
  let fieldScoped: Record<string, string>;

  beforeAll(async () => {
    w = await world({
      project: { name: 'Selected values' },
      collections: [
        collection('companies', [field.text('name')]),
        authors(field.text('bio'), field.relation('company', 'companies')),
        posts(field.number('views'), field.text('notes'), field.relation('author', 'authors'), field.relation('editors', 'authors', 2)),
      ],
    });
    const company = (await w.api('POST', '/api/companies', { state: 'published', data: { name: 'Acme' } })).body.uuid;
    const published = (await w.api('POST', '/api/authors', { state: 'published', data: { name: 'Ada', bio: 'B', company } })).body.uuid;
    const draftOnly = (await w.api('POST', '/api/authors', { state: 'draft', data: { name: 'Draft author' } })).body.uuid;
    const republished = (await w.api('POST', '/api/authors', { state: 'published', data: { name: 'Old name' } })).body.uuid;
    await w.api('PATCH', `/api/authors/${republished}`, { data: { name: 'New draft name' } });
    const deleted = (await w.api('POST', '/api/authors', { state: 'published', data: { name: 'Gone' } })).body.uuid;
    const links = [published, draftOnly, republished, deleted, published, published, undefined];
    const made: string[] = [];
    for (const [i, author] of links.entries()) {
      const data = { title: `P${i}`, views: i, notes: i % 2 ? null : `n${i}`, ...(author ? { author } : {}), editors: links.filter((l) => l).slice(i % 4) };
      const res = await w.api('POST', '/api/posts', { state: i === 3 ? 'draft' : 'published', data });
      expect(res.status, res.text).toBe(201);
      made.push(res.body.uuid);
    }
    expect((await w.api('DELETE', `/api/authors/${deleted}`)).status).toBeLessThan(300);
    // Links no write would make: an entry that never existed, and an entry of another collection.
    const relink = (post: string, target: string) =>
      w.t.database.query(`UPDATE entries SET published_data = jsonb_set(published_data, '{author}', to_jsonb($2::text)), data = jsonb_set(data, '{author}', to_jsonb($2::text)) WHERE uuid = $1::uuid`, [post, target]);
    await relink(made[4], '00000000-0000-4000-8000-000000000000');
    await relink(made[5], company);
    const issued = await w.api('POST', '/api/project/tokens', { name: 'no notes', abilities: ['*'], collections: ['posts', 'authors'], fields: { posts: ['title', 'author'] } });
    fieldScoped = { 'project-id': w.p.uuid, authorization: `Bearer ${issued.body.data.token}` };
  }, 60_000);
  afterAll(() => w.close());

  const SELECTIONS = [
    'uuid title author { name }',
    'id uuid title views notes createdAt updatedAt publishedAt isDraftDirty author { uuid name bio createdAt } editors { name }',
    '...F',
    '__typename title author { __typename name }',
  ];
  const FRAGMENT = ' fragment F on Post { uuid title author { name } }';

  async function both(selection: string, args: string, headers = w.p.headers) {
    const tail = selection === '...F' ? FRAGMENT : '';
    const narrow = await w.t.graphql(`{ posts(${args}) { data { ${selection} } pageInfo { hasNextPage } } }${tail}`, undefined, headers);
    const whole = await w.t.graphql(`{ __typename posts(${args}) { data { ${selection} } pageInfo { hasNextPage } } }${tail}`, undefined, headers);
    return { narrow: narrow.body, whole: whole.body };
  }

  it('answers as the whole-entry read does, published and draft, paged and not', async () => {
    for (const selection of SELECTIONS) {
      for (const args of ['perPage: 3', 'perPage: 20', 'perPage: 20, state: draft', 'perPage: 2, state: draft']) {
        const { narrow, whole } = await both(selection, args);
        expect(narrow.errors, JSON.stringify(narrow.errors)).toBeUndefined();
        expect(narrow.data.posts, `${selection} (${args})`).toEqual(whole.data.posts);
      }
    }
  });

  it('keeps a token\'s field scope', async () => {
    const { narrow, whole } = await both('title author { name }', 'perPage: 20', fieldScoped);
    expect(narrow.data.posts).toEqual(whole.data.posts);
    const refused = await w.t.graphql('{ posts(perPage: 5) { data { title notes } } }', undefined, fieldScoped);
    expect(refused.body.errors?.length).toBeGreaterThan(0);
  });

  it('reads a page and its links in one statement after authentication', async () => {
    // Another page size than any read before: not an answer of the read cache.
    const query = '{ posts(perPage: 6) { data { uuid title author { name } } } }';
    const { result, texts } = await recordStatements(() => w.t.graphql(query, undefined, w.p.headers));
    expect(result.body.data.posts.data).toHaveLength(6);
    expect(texts).toHaveLength(2);
    // The page reads the shown keys, not whole values.
    expect(texts[1]).toContain(`jsonb_build_object('title'`);
    expect(texts[1]).not.toContain('e.published_data AS "publishedData", e.published_version_id');
  });
});
