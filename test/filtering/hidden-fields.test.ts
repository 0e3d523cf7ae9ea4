import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { SECRET_V1, secretData, visibilityWorld } from '../entries/visibility-fixture.ts';

/**
 * Issue 14 §2 and §4: hidden and password fields are unknown to `where` and `sort` (a filter on them
 * was an oracle: `where[internal][like]=S%&count=1` extracted the value one character at a time), and
 * sort names never reach SQL through an inherited property (`__proto__`, `constructor`).
 */
describe('where and sort name only fields a caller may see', () => {
  let t: TestApp;
  let p: TestProject;
  let vault: string;

  beforeAll(async () => {
    t = await startTestApp();
    p = await t.project();
    await visibilityWorld(t, p);
    const res = await t.request({ method: 'POST', url: '/api/vaults', headers: p.headers, body: { data: secretData('Vault'), state: 'published' } });
    expect(res.status).toBe(201);
    vault = res.body.uuid;
    const shelf = await t.request({ method: 'POST', url: '/api/shelves', headers: p.headers, body: { data: { name: 'S', vault }, state: 'published' } });
    expect(shelf.status).toBe(201);
  });
  afterAll(() => t?.close());

  const get = (url: string) => t.request({ method: 'GET', url, headers: p.headers });
  const unknownField = (name: string) => `The field '${name}' does not exist in this collection.`;
  const unknownSort = (name: string) => `Cannot sort by "${name}": use id, created_at, updated_at, published_at or a single-valued scalar field of the collection.`;

  /** [label, url, error key, message]: the message a field that does not exist gets. */
  const WHERE: Array<[string, string, string, string]> = [
    ['like on a hidden field', `/api/vaults?where[internal][like]=${SECRET_V1.slice(0, 3)}`, 'where.internal', unknownField('internal')],
    ['like on a hidden field with count', `/api/vaults?where[internal][like]=S&count=1`, 'where.internal', unknownField('internal')],
    ['eq shorthand on a hidden field, draft', `/api/vaults?state=draft&where[internal]=${SECRET_V1}`, 'where.internal', unknownField('internal')],
    ['null on a hidden field', `/api/vaults?where[internal][null]=1`, 'where.internal', unknownField('internal')],
    ['a password field', `/api/vaults?where[pin][eq]=x&count=1`, 'where.pin', unknownField('pin')],
    ['a hidden field inside or', `/api/vaults?where[or][0][internal][like]=S&where[or][1][title]=x`, 'where.or.0.internal', unknownField('internal')],
    ['a hidden field of the related collection', `/api/shelves?where[vault][internal][like]=S&count=1`, 'where.vault.internal', unknownField('internal')],
    ['a group that holds a hidden field', `/api/vaults?where[extra][null]=0`, 'where.extra', "The field 'extra' cannot be filtered."],
    ['a field that does not exist (same message)', `/api/vaults?where[nope][like]=S`, 'where.nope', unknownField('nope')],
  ];

  it.each(WHERE)('where: %s → 422 naming the field', async (_label, url, key, message) => {
    const res = await get(url);
    expect(res.status, res.text).toBe(422);
    expect(res.body.errors[key]).toEqual([message]);
    expect(res.text).not.toContain(SECRET_V1);
  });

  const SORT: Array<[string, string]> = [
    ['internal:asc', 'internal'],
    ['internal:desc', 'internal'],
    ['pin', 'pin'],
    ['title,internal', 'internal'],
    ['nope', 'nope'],
    ['__proto__', '__proto__'],
    ['__proto__:desc', '__proto__'],
    ['constructor', 'constructor'],
    ['toString:asc', 'toString'],
    ['hasOwnProperty', 'hasOwnProperty'],
  ];

  it.each(SORT)('sort=%s → 422 on sort, never a 500', async (sort, name) => {
    for (const url of [`/api/vaults?sort=${sort}`, `/api/vaults?state=draft&paginate=5&sort=${sort}`, `/api/vaults?first=1&sort=${sort}`]) {
      const res = await get(url);
      expect(res.status, `${url}: ${res.text}`).toBe(422);
      expect(res.body.errors.sort).toEqual([unknownSort(name)]);
    }
  });

  it('visible fields still filter and sort', async () => {
    const res = await get('/api/vaults?where[title][like]=Vau&sort=title:desc&count=1');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ count: 1 });
  });

  it('GraphQL: where and sort on hidden fields are VALIDATION_FAILED, as unknown fields are', async () => {
    const cases: Array<[string, string]> = [
      ['{ entries(collection: "vaults", where: { internal: { like: "S" } }) { total } }', 'where.internal'],
      ['{ entries(collection: "vaults", where: { pin: "x" }) { total } }', 'where.pin'],
      ['{ entries(collection: "shelves", where: { vault: { internal: { like: "S" } } }) { total } }', 'where.vault.internal'],
      ['{ entries(collection: "vaults", filter: [{ field: "internal", like: "S" }]) { total } }', 'where'],
      ['{ entries(collection: "vaults", sort: "internal:asc") { total } }', 'sort'],
      ['{ entries(collection: "vaults", sort: "__proto__") { total } }', 'sort'],
      ['{ entries(collection: "vaults", sort: "constructor:desc") { total } }', 'sort'],
    ];
    for (const [query, key] of cases) {
      const res = await t.graphql(query, {}, p.headers);
      const error = res.body.errors?.[0];
      expect(error?.extensions?.code, `${query}: ${JSON.stringify(res.body)}`).toBe('VALIDATION_FAILED');
      expect(Object.keys(error.extensions.errors ?? {}).some((k) => k.startsWith(key)), JSON.stringify(error)).toBe(true);
    }
  });

  it('GraphQL typed: hidden fields are neither filter inputs nor sort values', async () => {
    const where = await t.graphql('{ vaults(where: { internal: { like: "S" } }) { data { title } } }', {}, p.headers);
    expect(where.body.errors?.[0]?.message).toMatch(/internal/);
    const sort = await t.graphql('{ vaults(sort: [internal_ASC]) { data { title } } }', {}, p.headers);
    expect(sort.body.errors?.[0]?.message).toMatch(/internal_ASC/);
    const ok = await t.graphql('{ vaults(where: { title: { like: "Vau" } }, sort: [title_DESC]) { data { title } } }', {}, p.headers);
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.vaults.data).toEqual([{ title: 'Vault' }]);
  });
});
