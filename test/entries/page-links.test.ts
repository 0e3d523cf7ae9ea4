import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { contentProject } from './helpers.ts';
import { STATEMENT_NAME_BOUNDS, statementName } from '../../src/entries/reads/read-rows.ts';

/** The statements (text and prepared name) sent through any pg client of this process while `fn` runs. */
async function capture<T>(fn: () => Promise<T>): Promise<{ result: T; sent: Array<{ text: string; name?: string }> }> {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const sent: Array<{ text: string; name?: string }> = [];
  proto.query = function (this: unknown, ...args: unknown[]) {
    const config = args[0] as { text?: unknown; name?: unknown } | string;
    if (typeof config === 'string') sent.push({ text: config });
    else if (typeof config?.text === 'string') sent.push({ text: config.text, name: typeof config.name === 'string' ? config.name : undefined });
    return original.apply(this, args);
  };
  try {
    return { result: await fn(), sent };
  } finally {
    proto.query = original;
  }
}
const pageForm = (sent: Array<{ text: string; name?: string }>) => sent.filter((s) => s.text.includes('WITH p AS MATERIALIZED'));

/**
 * Unfiltered list pages read the links of the whole page once, as a named prepared statement
 * (src/entries/reads/page-rows.ts), and answer exactly what the per-row form answers: shared targets,
 * trashed and never-published targets left out, multi-relations, hidden relation fields, both
 * states, the page's order, later pages (per-row form), REST and GraphQL. The per-row answers are
 * both the explicit values below and, at the end, the same requests once the page names are used up.
 */
describe('list pages with their links read once (PostgreSQL)', () => {
  let t: TestApp;
  let c: Awaited<ReturnType<typeof contentProject>>;
  const authors: Record<string, string> = {};
  const posts: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({ env: { READ_CACHE_MB: '0' } });
    c = await contentProject(t, { locales: ['en', 'de'] });
    const a = await c.collection('authors', [{ name: 'name', type: 'text' }]);
    await c.collection('posts', [
      { name: 'title', type: 'text' },
      { name: 'rank', type: 'number' },
      { name: 'author', type: 'relation', options: { relation: { collection: a.id, type: 1 } } },
      { name: 'others', type: 'relation', options: { relation: { collection: a.id, type: 2 } } },
      { name: 'editor', type: 'relation', options: { relation: { collection: a.id, type: 1 }, hiddenInAPI: true } },
    ]);
    for (const [name, state] of [['Ann', 'published'], ['Bob', 'published'], ['Cy', 'draft'], ['Dee', 'published']] as const) {
      const r = await c.create('authors', { state, data: { name } });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      authors[name] = r.body.uuid;
    }
    const { Ann, Bob, Cy, Dee } = authors;
    const data = [
      { title: 'P0', rank: 3, author: Ann, others: [Bob, Cy, Dee], editor: Bob },
      { title: 'P1', rank: 1, author: Ann, others: [Ann] },
      { title: 'P2', rank: 4, author: Dee, others: [] },
      { title: 'P3', rank: 2, author: Cy, others: [Dee, Bob, Ann] },
      { title: 'P4', rank: 0, author: Bob },
    ];
    for (const d of data) {
      const r = await c.create('posts', { state: 'published', data: d });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      posts.push(r.body.uuid);
    }
    expect((await c.del('authors', Dee)).status).toBe(200);
    // Drafts over published copies: published reads keep the published ones.
    expect((await c.patch('authors', Ann, { data: { name: 'Ann (draft)' } })).status).toBe(200);
    expect((await c.patch('posts', posts[1], { data: { title: 'P1 (draft)', author: Cy } })).status).toBe(200);
  }, 120_000);
  afterAll(() => t.close());

  type Listed = { fields: { title: string; author: { fields: { name: string } } | null; others?: Array<{ fields: { name: string } }>; editor?: unknown } };
  const shape = (data: Listed[]) =>
    data.map((e) => [e.fields.title, e.fields.author?.fields.name ?? null, (e.fields.others ?? []).map((o) => o.fields.name), 'editor' in e.fields]);

  const published = [
    ['P0', 'Ann', ['Bob'], false],
    ['P1', 'Ann', ['Ann'], false],
    ['P2', null, [], false],
    ['P3', null, ['Bob', 'Ann'], false],
    ['P4', 'Bob', [], false],
  ];
  const drafts = [
    ['P0', 'Ann (draft)', ['Bob', 'Cy'], false],
    ['P1 (draft)', 'Cy', ['Ann (draft)'], false],
    ['P2', null, [], false],
    ['P3', 'Cy', ['Bob', 'Ann (draft)'], false],
    ['P4', 'Bob', [], false],
  ];
  const byRankDesc = [2, 0, 3, 1, 4];

  /**
   * Requests whose answers the per-row form must give too (the last test). `alt` asks the same with
   * the locale condition toggled (every post is English): another statement text, the same answer.
   */
  const en = (alt: boolean, on: boolean) => (alt !== on ? '&locale=en' : '');
  const requests: Record<string, (alt: boolean) => Promise<unknown>> = {
    'REST page 1': async (alt) => (await c.list('posts', `?paginate=2${en(alt, true)}`)).body.data,
    'REST page 2': async (alt) => (await c.list('posts', `?paginate=2&page=2${en(alt, true)}`)).body.data,
    'REST page total': async (alt) => (await c.list('posts', `?paginate=2${en(alt, true)}`)).body.meta.total,
    'REST drafts by rank': async (alt) => (await c.list('posts', `?state=draft&sort=rank:desc&limit=10${en(alt, false)}`)).body,
    'REST first': async (alt) => (await c.list('posts', `?first=1&sort=title:desc${en(alt, false)}`)).body,
    GraphQL: async (alt) => {
      const locale = alt ? ', locale: "en"' : '';
      const query = `{ pub: posts(perPage: 3, sort: [rank_DESC]${locale}) { data { title author { name } others { name } } } draft: posts(perPage: 5, state: draft${locale}) { data { title author { name } others { name } } } }`;
      return (await t.graphql(query, {}, c.p.headers)).body;
    },
  };

  it('REST page 1 runs prepared in the page form; page 2 in the per-row form; same answers as per row', async () => {
    const one = await capture(() => c.list('posts', '?paginate=2&locale=en'));
    expect(one.result.status).toBe(200);
    expect(shape(one.result.body.data)).toEqual(published.slice(0, 2));
    expect(one.result.body.meta.total).toBe(5);
    const [statement] = pageForm(one.sent);
    expect(statement?.name).toMatch(/^cms_page_\d+$/);
    // Only the locale is a parameter: the relation names, ids and page size are in the text.
    expect(statement.text).toContain("ARRAY['author', 'others']");
    expect(statement.text).not.toContain("'editor'");
    expect(statement.text).not.toMatch(/\$[2-9]/);

    const two = await capture(() => c.list('posts', '?paginate=2&page=2&locale=en'));
    expect(shape(two.result.body.data)).toEqual(published.slice(2, 4));
    expect(pageForm(two.sent)).toEqual([]);
    const three = await c.list('posts', '?paginate=2&page=3&locale=en');
    expect(shape(three.body.data)).toEqual(published.slice(4));
  });

  it('sorted drafts, arrays and the first entry hydrate like per-row reads', async () => {
    const r = await capture(() => c.list('posts', '?state=draft&sort=rank:desc&limit=10'));
    expect(shape(r.result.body)).toEqual(byRankDesc.map((i) => drafts[i]));
    expect(pageForm(r.sent)).toHaveLength(1);
    // With an offset: the per-row form.
    const later = await capture(() => c.list('posts', '?state=draft&sort=rank:desc&limit=2&offset=3'));
    expect(shape(later.result.body)).toEqual([drafts[1], drafts[4]]);
    expect(pageForm(later.sent)).toEqual([]);
    const first = await c.list('posts', '?first=1&sort=title:desc');
    expect(shape([first.body])).toEqual([published[4]]);
    expect((await c.list('posts', '?locale=de&limit=10')).body).toEqual([]);
  });

  it('a filtered list keeps the per-row form', async () => {
    const r = await capture(() => c.list('posts', '?where[rank][gt]=1&paginate=10'));
    expect(shape(r.result.body.data)).toEqual([published[0], published[2], published[3]]);
    expect(pageForm(r.sent)).toEqual([]);
  });

  it('GraphQL lists (with and without total) answer the same through the page form', async () => {
    const r = await capture(() => requests.GraphQL(false));
    const body = r.result as { data: { pub: { data: unknown[] }; draft: { data: unknown[] } }; errors?: unknown };
    expect(body.errors).toBeUndefined();
    const names = (rows: unknown[]) =>
      (rows as Array<{ title: string; author: { name: string } | null; others: Array<{ name: string }> | null }>).map((p) => [p.title, p.author?.name ?? null, (p.others ?? []).map((o) => o.name)]);
    expect(names(body.data.pub.data)).toEqual(byRankDesc.slice(0, 3).map((i) => published[i].slice(0, 3)));
    expect(names(body.data.draft.data)).toEqual(drafts.map((d) => d.slice(0, 3)));
    expect(pageForm(r.sent).length).toBe(2);
    const total = await capture(() => t.graphql('{ posts(perPage: 4, sort: [rank_ASC]) { pageInfo { total } data { title author { name } } } }', {}, c.p.headers));
    expect(total.result.body.data.posts.pageInfo.total).toBe(5);
    expect(total.result.body.data.posts.data.map((p: { title: string; author: { name: string } | null }) => [p.title, p.author?.name ?? null])).toEqual([
      ['P4', 'Bob'],
      ['P1', 'Ann'],
      ['P3', null],
      ['P0', 'Ann'],
    ]);
    expect(pageForm(total.sent)).toHaveLength(1);
  });

  it('statement names stay bounded; past the bound pages run per row, unnamed, with the same answers', async () => {
    const before: Record<string, unknown> = {};
    for (const [k, run] of Object.entries(requests)) before[k] = await run(false);
    const named = new Set<string>();
    for (let i = 0; i < STATEMENT_NAME_BOUNDS.page + 10; i++) {
      const name = statementName(`SELECT ${i} -- page-links test`, 'page');
      if (name !== undefined) named.add(name);
    }
    expect(named.size).toBeLessThanOrEqual(STATEMENT_NAME_BOUNDS.page);
    expect(statementName('SELECT -1 -- page-links test, past the bound', 'page')).toBeUndefined();
    // The other reads keep their own names.
    expect(statementName('SELECT 1 -- page-links test', 'read')).toMatch(/^cms_read_\d+$/);
    for (const [k, run] of Object.entries(requests)) {
      const r = await capture(() => run(true));
      expect(pageForm(r.sent), k).toEqual([]);
      expect(r.result, k).toEqual(before[k]);
    }
  });
});
