import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQuery } from '../../src/http/server.ts';
import { AppError } from '../../src/errors.ts';
import { postsWorld } from './fixture.ts';
import type { FilterWorld } from './world.ts';
import { edgeDate, outOfRangeInt } from '../fuzz/harness.ts';

/**
 * Random bracket strings and values against the parser, the compiled SQL and the list route: the
 * only acceptable outcomes are a result (200) or a 422. Seeded, so a failure replays. Runs on
 * embedded PGlite (the operator table covers PostgreSQL and PGlite alike).
 */
let w: FilterWorld;
beforeAll(async () => {
  w = await postsWorld({ embedded: true });
});
afterAll(() => w?.close());

const FIELDS = ['title', 'tags', 'views', 'scores', 'active', 'day', 'at', 'span', 'spanAt', 'color', 'cats', 'meta', 'seo', 'author', 'authors', 'cover', 'gallery', 'secret', 'id', 'uuid', 'locale', 'state', 'created_at', 'published_at', 'name', 'age', 'nope', '__proto__', 'constructor', ''];
const OPS = ['eq', 'lt', 'lte', 'gt', 'gte', 'not', 'like', 'in', 'not_in', 'between', 'not_between', 'null', 'not_null', 'or', 'and', '0', '1', 'x', ''];
const VALUES = ['', '1', '-3', '10.5', '1e400', 'abc', 'true', 'false', '0', '2026-01-10', '2026-02-30', '2026-01-10T10:00:00Z', '%', '_', '\\', "'", '"', '{"k":1}', '[1,2]', 'null', '1,2', 'a,b,c', '00000000-0000-0000-0000-000000000000', '99999999999999999999', '\u0000', 'é', 'NaN', 'Infinity'];

const REAL_FIELDS = FIELDS.slice(0, 24);
const REAL_OPS = OPS.slice(0, 13);
// Issue 14 §4: calendar edges (instants past 9999-12-31 UTC) and ids beyond int4 are generated too.
const value = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...VALUES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: edgeDate },
  { weight: 1, arbitrary: outOfRangeInt.map(String) },
);
const segment = fc.oneof(fc.constantFrom(...FIELDS, ...OPS), fc.nat({ max: 3 }).map(String), fc.string({ maxLength: 4 }));
const path = fc.oneof(
  // Dates and references, where the calendar edges and out-of-range ids matter.
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('day', 'at', 'span', 'spanAt', 'created_at', 'published_at', 'author', 'authors', 'cover', 'gallery'), fc.constantFrom(...REAL_OPS)) },
  // Mostly well-formed shapes, so values reach the SQL; some garbage, so the parser's guards are hit.
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...REAL_FIELDS), fc.constantFrom(...REAL_OPS)) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...REAL_FIELDS)) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('or', 'and'), fc.nat({ max: 2 }).map(String), fc.constantFrom(...REAL_FIELDS), fc.constantFrom(...REAL_OPS)) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('author', 'authors'), fc.constantFrom('name', 'age', 'uuid', 'id', 'mentor', 'or'), fc.constantFrom(...REAL_OPS)) },
  { weight: 1, arbitrary: fc.array(segment, { minLength: 0, maxLength: 7 }) },
);
const pair = fc
  .tuple(path, value, fc.boolean())
  .map(([segments, v, emptyBrackets]) => `where${segments.map((x) => `[${encodeURIComponent(x)}]`).join('')}${emptyBrackets ? '[]' : ''}=${encodeURIComponent(v)}`);
const queryString = fc.array(pair, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('&'));

describe('where property: only results or 422', () => {
  it('compiles random where objects to SQL that runs, or to a 422', async () => {
    await fc.assert(
      fc.asyncProperty(queryString, fc.constantFrom('data' as const, 'published_data' as const), async (qs, column) => {
        const where = parseQuery(qs).where;
        try {
          await w.match('posts', where, column);
        } catch (err) {
          if (!(err instanceof AppError) || err.status !== 422) throw err;
          expect(Object.keys(err.errors ?? {}).every((k) => k === 'where' || k.startsWith('where.'))).toBe(true);
        }
      }),
      { seed: 20261121, numRuns: 300 },
    );
  }, 180_000);

  it('answers random query strings on the list route with 200 or 422', async () => {
    await fc.assert(
      fc.asyncProperty(queryString, fc.constantFrom('', 'state=draft&', 'paginate=5&sort=views:desc&'), async (qs, prefix) => {
        const res = await w.t.request({ method: 'GET', url: `/api/posts?${prefix}${qs}`, headers: w.project.headers });
        expect([200, 422], `${qs} -> ${res.text}`).toContain(res.status);
      }),
      { seed: 424242, numRuns: 200 },
    );
  }, 180_000);
});
