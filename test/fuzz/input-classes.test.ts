import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import {
  TIMEOUT,
  badValue,
  deepJson,
  edgeDate,
  expectConsistentDatabase,
  expectSane,
  fuzzParams,
  fuzzWorld,
  malformedPercent,
  nestedJsonText,
  outOfRangeInt,
  tableChecksum,
  unstorableString,
} from './harness.ts';

/**
 * encodeURIComponent refuses unpaired surrogates; a hostile client sends their WTF-8 bytes anyway
 * (`%ED%A0%80`), which the query parser keeps as text when they do not decode.
 */
function percentEncode(s: string): string {
  return Array.from(s, (ch) => {
    const cu = ch.charCodeAt(0);
    if (ch.length === 1 && cu >= 0xd800 && cu <= 0xdfff) {
      return [0xe0 | (cu >> 12), 0x80 | ((cu >> 6) & 0x3f), 0x80 | (cu & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    }
    return encodeURIComponent(ch);
  }).join('');
}

/**
 * Issue 14 §4, generated: NUL and unpaired surrogates, integers beyond int4, calendar edges, deep
 * JSON and malformed percent-encoding, planted in query parameters, where values, entry data, bulk
 * items, webhook, collection and field bodies, GraphQL variables and URL paths. No answer may be a
 * 5xx, and a refused write must leave every table as it was.
 */
describe('fuzz: the input classes of issue 14 §4', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  let uuids: string[];
  beforeAll(async () => {
    t = await startTestApp();
    const w = await fuzzWorld(t);
    headers = w.p.headers;
    uuids = w.uuids;
  });
  afterAll(async () => t?.close());

  /** Sends a write; when it is refused, no table may have changed. */
  async function refusedWritesNothing(method: string, url: string, send: { body?: unknown; payload?: string }, what: string): Promise<void> {
    const before = await tableChecksum(t);
    const res = await t.request({ method, url, headers: { ...headers, 'content-type': 'application/json' }, ...send });
    expectSane(res, what);
    if (res.status >= 400) expect(await tableChecksum(t), `${what} was refused (${res.status}) but changed the tables`).toBe(before);
  }

  const queryValue = fc.oneof(unstorableString.map(percentEncode), outOfRangeInt.map(String), edgeDate.map(encodeURIComponent), fc.constantFrom('%00', 'a%00b'));
  const queryParam = fc.constantFrom(
    'where[title][eq]',
    'where[title][like]',
    'where[author][eq]',
    'where[author][in]',
    'where[author][name][eq]',
    'where[id][eq]',
    'where[created_at][eq]',
    'where[updated_at][lt]',
    'where[published_at][between]',
    'where[day][gte]',
    'where[meta][eq]',
    'where[ti\u0000tle][eq]',
    'locale',
    'state',
    'sort',
    'paginate',
    'page',
  );

  it('query parameters and where values', async () => {
    await fc.assert(
      fc.asyncProperty(queryParam, queryValue, fc.constantFrom('/api/posts', '/api/files', '/api/webhooks'), async (param, value, base) => {
        const url = `${base}?${encodeURIComponent(param).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${value}`;
        expectSane(await t.request({ method: 'GET', url, headers }), `GET ${url}`);
      }),
      // Reads are cheap: four times the runs, so every parameter meets every class.
      { ...fuzzParams(), numRuns: (fuzzParams().numRuns ?? 25) * 4 },
    );
  }, TIMEOUT);

  /** Bodies with one generated bad value in a slot each target reads. */
  const entryData = (v: unknown) => fc.constantFrom({ title: v }, { title: 'ok', meta: { k: v } }, { title: 'ok', author: v }, { title: 'ok', day: v }, { title: 'ok', seo: { title: v } }, { title: 'ok', tags: [v] });
  const writes = fc.oneof(
    badValue.chain((v) => entryData(v).map((data) => ({ method: 'POST', url: '/api/posts', body: { data } as unknown }))),
    fc.tuple(badValue, fc.nat(2)).chain(([v, i]) => entryData(v).map((data) => ({ method: 'PATCH', url: `/api/posts/{${i}}`, body: { data } as unknown }))),
    badValue.chain((v) => entryData(v).map((data) => ({ method: 'POST', url: '/api/bulk/posts/entries', body: { items: [{ data: { title: 'fine' } }, { data }] } as unknown }))),
    fc.tuple(badValue, fc.constantFrom('name', 'description', 'url', 'secret', 'collection_ids', 'events')).map(([v, key]) => ({
      method: 'POST',
      url: '/api/webhooks',
      body: { name: 'h', url: 'https://93.184.216.34/', events: ['content.created'], sources: ['api'], [key]: key === 'collection_ids' || key === 'events' ? [v] : v } as unknown,
    })),
    fc.tuple(badValue, fc.constantFrom('name', 'slug', 'description')).map(([v, key]) => ({ method: 'POST', url: '/api/collections', body: { name: 'Fz', slug: 'fz', [key]: v } as unknown })),
    fc.tuple(badValue, fc.constantFrom('label', 'name', 'description', 'placeholder')).map(([v, key]) => ({ method: 'POST', url: '/api/collections/authors/fields', body: { type: 'text', label: 'L', name: 'fzf', [key]: v } as unknown })),
  );

  it('entry, bulk, webhook, collection and field bodies: no 5xx, refused writes change nothing', async () => {
    await fc.assert(
      fc.asyncProperty(writes, async ({ method, url, body }) => {
        const u = url.replace(/\{(\d)\}/, (_m, i: string) => uuids[Number(i)]);
        await refusedWritesNothing(method, u, { body }, `${method} ${u} ${JSON.stringify(body)?.slice(0, 200)}`);
      }),
      fuzzParams(),
    );
    await expectConsistentDatabase(t);
  }, TIMEOUT);

  it('JSON nested past the limit in entry data, bulk items and GraphQL variables', async () => {
    const target = fc.constantFrom(
      { method: 'POST', url: '/api/posts', template: '{"data":{"title":"deep","meta":DEEP}}' },
      { method: 'POST', url: '/api/posts', template: '{"data":DEEP}' },
      { method: 'POST', url: '/api/bulk/posts/entries', template: '{"items":[{"data":{"title":"x","meta":DEEP}}]}' },
      { method: 'POST', url: '/graphql', template: '{"query":"query($w: JSON) { entries(collection: \\"posts\\", where: $w) { total } }","variables":{"w":DEEP}}' },
      { method: 'POST', url: '/graphql', template: '{"query":"mutation($d: JSON!) { createEntry(collection: \\"posts\\", data: $d) { uuid } }","variables":{"d":{"title":"x","meta":DEEP}}}' },
    );
    await fc.assert(
      fc.asyncProperty(target, deepJson, async ({ method, url, template }, spec) => {
        const payload = template.replace('DEEP', nestedJsonText(spec));
        await refusedWritesNothing(method, url, { payload }, `${method} ${url} nested ${spec.depth} levels (${spec.shape})`);
      }),
      fuzzParams(),
    );
  }, TIMEOUT);

  it('GraphQL variables: no INTERNAL_SERVER_ERROR, refused writes change nothing', async () => {
    const where = fc.oneof(
      fc.tuple(fc.constantFrom('title', 'meta', 'author', 'created_at', 'published_at', 'day'), fc.constantFrom('eq', 'lt', 'in', 'between'), fc.oneof(badValue, fc.array(badValue, { minLength: 2, maxLength: 2 }))).map(([f, op, v]) => ({ [f]: { [op]: v } })),
      unstorableString.map((k) => ({ [k]: { eq: 'x' } })),
    );
    await fc.assert(
      fc.asyncProperty(fc.boolean(), where, badValue.chain(entryData), async (read, w, data) => {
        const body = read
          ? { query: 'query($w: JSON) { entries(collection: "posts", where: $w) { total } }', variables: { w } }
          : { query: 'mutation($d: JSON!) { createEntry(collection: "posts", data: $d) { uuid } }', variables: { d: data } };
        const before = await tableChecksum(t);
        const res = await t.request({ method: 'POST', url: '/graphql', headers, body });
        const what = `graphql ${JSON.stringify(body.variables).slice(0, 200)}`;
        expectSane(res, what);
        const errors = (res.body as { errors?: Array<{ extensions?: { code?: string } }> }).errors ?? [];
        expect(errors.map((e) => e.extensions?.code), `${what} → ${res.text.slice(0, 300)}`).not.toContain('INTERNAL_SERVER_ERROR');
        if (!read && errors.length > 0) expect(await tableChecksum(t), `${what} was refused but changed the tables`).toBe(before);
      }),
      fuzzParams(),
    );
  }, TIMEOUT);

  it('malformed percent-encoding in paths answers 4xx with { message }', async () => {
    await fc.assert(
      fc.asyncProperty(malformedPercent, fc.constantFrom('/api/', '/api/posts/', '/api/files/', '/api/posts/{0}/versions/', '/graphql/'), async (bad, prefix) => {
        const url = prefix.replace('{0}', uuids[0]) + bad;
        const res = await t.request({ method: 'GET', url, headers });
        expectSane(res, `GET ${url}`);
        expect(res.status, `GET ${url}`).toBeGreaterThanOrEqual(400);
        expect(Object.keys(res.body as object).filter((k) => k !== 'errors'), `GET ${url} → ${res.text}`).toEqual(['message']);
      }),
      fuzzParams(),
    );
  }, TIMEOUT);
});
