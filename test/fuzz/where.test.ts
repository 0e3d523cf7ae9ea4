import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { KEYS, TIMEOUT, expectConsistentDatabase, expectSane, fuzzParams, fuzzWorld } from './harness.ts';

const OPS = ['eq', 'not', 'lt', 'lte', 'gt', 'gte', 'like', 'in', 'not_in', 'between', 'not_between', 'null', 'not_null', 'EQ', 'nope', '', '0', '__proto__'];

/** One `where[...]` segment: keys, operators and OR-group indices in any order and depth. */
const path = fc.array(fc.oneof(fc.constantFrom(...KEYS), fc.constantFrom(...OPS), fc.nat(3).map(String), fc.string({ maxLength: 6 })), { minLength: 0, maxLength: 5 });
const value = fc.oneof(
  fc.constantFrom('', 'true', 'false', '1', '-1', '1,2', '1,2,3', ',', '2024-01-01', '2024-13-45', 'null', 'a%b', '%', '%zz', '%E0%A4%A', '\u0000', "' OR 1=1 --", '{"a":1}', 'x'.repeat(5000)),
  fc.string({ maxLength: 20 }),
  fc.integer().map(String),
);
const encode = (s: string, raw: boolean) => (raw ? s : encodeURIComponent(s));
const segment = fc.tuple(path, value, fc.boolean(), fc.boolean()).map(([p, v, rawKey, rawValue]) => {
  const brackets = p.map((k) => `[${encode(k, rawKey)}]`).join('');
  return `where${brackets}=${encode(v, rawValue && !/[#?&\s]/.test(v))}`;
});
const query = fc.tuple(fc.array(segment, { minLength: 1, maxLength: 6 }), fc.constantFrom('', '&state=draft', '&state=published', '&paginate=5', '&sort=views:desc', '&locale=de')).map(([segs, extra]) => segs.join('&') + extra);

describe('fuzz: list filter `where`', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  beforeAll(async () => {
    t = await startTestApp();
    headers = (await fuzzWorld(t)).p.headers;
  });
  afterAll(async () => t?.close());

  it('answers every bracket string with 2xx/4xx JSON', async () => {
    await fc.assert(
      fc.asyncProperty(query, fc.constantFrom('/api/posts', '/api/authors'), async (qs, base) => {
        const url = `${base}?${qs}`;
        expectSane(await t.request({ method: 'GET', url, headers }), `GET ${url}`);
      }),
      fuzzParams(),
    );
    await expectConsistentDatabase(t);
  }, TIMEOUT);

  it('answers structured GraphQL where filters with data or client errors', async () => {
    const where = fc.dictionary(fc.constantFrom(...KEYS), fc.oneof(fc.string({ maxLength: 8 }), fc.dictionary(fc.constantFrom(...OPS), fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 })), { maxKeys: 2 })), { maxKeys: 3 });
    await fc.assert(
      fc.asyncProperty(where, async (w) => {
        const res = await t.request({ method: 'POST', url: '/graphql', headers, body: { query: 'query($w: JSON) { entries(collection: "posts", where: $w) { total } }', variables: { w } } });
        expectSane(res, `entries(where: ${JSON.stringify(w)})`);
        const codes = (res.body?.errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code);
        if (codes.includes('INTERNAL_SERVER_ERROR')) expectSane({ status: 500, text: res.text }, `entries(where: ${JSON.stringify(w)})`);
      }),
      fuzzParams(),
    );
  }, TIMEOUT);
});
