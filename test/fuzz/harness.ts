import fc from 'fast-check';
import { expect } from 'vitest';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { world, authors, collection, field } from '../helpers/world.ts';

/**
 * Shared pieces of the HTTP fuzz suite. `npm test` runs a short, fixed-seed pass (repeatable in CI);
 * `npm run fuzz` a long one with a fresh seed. Either way FUZZ_SEED / FUZZ_RUNS override, and a
 * failure message carries the seed and path that reproduce it.
 */
const LONG = process.env.FUZZ_LONG === '1';
export const RUNS = Number(process.env.FUZZ_RUNS ?? (LONG ? 500 : 25));
export const SEED = Number(process.env.FUZZ_SEED ?? (LONG ? Math.floor(Math.random() * 2 ** 31) : 20261121));
/** Per-test timeout that grows with the number of runs. */
export const TIMEOUT = 30_000 + RUNS * 400;

export function fuzzParams(): fc.Parameters<unknown> {
  return { numRuns: RUNS, seed: SEED, endOnFailure: !LONG, verbose: 1 };
}

/** Every answer must be 2xx/4xx with a JSON body (204 has none). */
export function expectSane(res: { status: number; text: string }, what: string): void {
  const ctx = `${what} → ${res.status} ${res.text.slice(0, 300)} (FUZZ_SEED=${SEED})`;
  expect(res.status < 500 && res.status >= 200 && !(res.status >= 300 && res.status < 400), ctx).toBe(true);
  if (res.status === 204) return;
  expect(() => JSON.parse(res.text), ctx).not.toThrow();
}

/** The content model every fuzz file writes into: one required field, and one of each kind. */
export async function fuzzWorld(t: TestApp): Promise<{ p: TestProject; uuids: string[] }> {
  const w = await world({ app: t, project: { name: 'Fuzz', locales: ['en', 'de'], plan: 'basic' }, via: 'api' });
  const p = w.p;
  const post = async (url: string, body: unknown) => {
    const res = await t.request({ method: 'POST', url, headers: p.headers, body });
    expect(res.status, `${url}: ${res.text}`).toBeLessThan(300);
    return res.body;
  };
  await w.collection(authors());
  await w.collection(
    collection('posts', [
      field.required('title'),
      field.number('views'),
      field.boolean('active'),
      { name: 'day', type: 'date' },
      { name: 'tags', type: 'enumeration', options: { enumeration: { list: ['a', 'b', 'c'] }, multiple: true } },
      { name: 'meta', type: 'json' },
      field.relation('author', 'authors'),
      { name: 'seo', type: 'group', options: { repeatable: false }, children: [field.text('title')] },
    ]),
  );
  const author = await post('/api/authors', { data: { name: 'Ann' }, state: 'published' });
  const uuids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const e = await post('/api/posts', { data: { title: `Post ${i}`, views: i, author: author.uuid }, state: i % 2 ? 'draft' : 'published' });
    uuids.push(e.uuid);
  }
  return { p, uuids };
}

/** Field names, core columns and hostile keys that random bodies and filters draw from. */
export const KEYS = [
  'title', 'views', 'active', 'day', 'tags', 'meta', 'author', 'seo', 'name',
  'id', 'uuid', 'locale', 'state', 'created_at', 'updated_at', 'published_at',
  'or', 'and', '0', '1', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', ' ', 'a.b', 'x[y]',
];

/** JSON values of every shape: wrong types, huge strings, deep nesting. */
export const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: 'small' },
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -0, '', 'a', 'true', '2024-01-01', '00000000-0000-4000-8000-000000000000', 'NaN'),
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.constant('x'.repeat(70_000)),
  fc.constant(nest(60)),
  fc.array(fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.constant(null)), { maxLength: 5 }),
  fc.dictionary(fc.constantFrom(...KEYS), fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.constant(null)), { maxKeys: 4 }),
);

function nest(depth: number): unknown {
  let v: unknown = 'deep';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** An object whose keys include prototype-pollution names (fast-check makes `__proto__` an own key). */
export const hostileObject: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(fc.constantFrom(...KEYS), jsonValue, { maxKeys: 6 });

/** Invariants that no request, accepted or refused, may break. */
export async function expectConsistentDatabase(t: TestApp): Promise<void> {
  const q = <T>(sql: string) => t.database.query<T>(sql);
  const missingRequired = await q<{ uuid: string }>(`
    SELECT e.uuid FROM entries e
      JOIN fields f ON f.collection_id = e.collection_id AND f.parent_field_id IS NULL AND f.deleted_at IS NULL
     WHERE e.deleted_at IS NULL AND (f.validations -> 'required' ->> 'status')::boolean IS TRUE
       AND (NOT (e.data ? f.name) OR e.data -> f.name IN ('null'::jsonb, '""'::jsonb))`);
  expect(missingRequired, 'entries without a required field').toEqual([]);
  const orphanVersions = await q(`SELECT v.id FROM entry_versions v LEFT JOIN entries e ON e.id = v.entry_id WHERE e.id IS NULL`);
  expect(orphanVersions, 'versions without their entry').toEqual([]);
  const badPointers = await q(`
    SELECT e.uuid FROM entries e LEFT JOIN entry_versions v ON v.id = e.published_version_id
     WHERE (e.published_version_id IS NOT NULL AND (v.id IS NULL OR v.entry_id <> e.id OR e.published_data IS NULL))
        OR (e.state = 'published' AND e.published_version_id IS NULL)`);
  expect(badPointers, 'published pointers to a missing or foreign version').toEqual([]);
  const orphanEvents = await q(`
    SELECT o.id, o.event FROM outbox_events o LEFT JOIN entries e ON e.uuid = o.entry_uuid
     WHERE o.entry_uuid IS NOT NULL AND e.id IS NULL
       AND NOT EXISTS (SELECT 1 FROM outbox_events d WHERE d.entry_uuid = o.entry_uuid AND d.event = 'content.deleted')`);
  expect(orphanEvents, 'outbox rows without their entry').toEqual([]);
}

/**
 * A fingerprint of every row the API can write (count and md5 per table), to prove a refused
 * request changed nothing. `api_tokens` is left out: authenticating stamps `last_used_at`. So are the
 * change log and the generation base rows: the background compaction folds the one into the other
 * at any time, and a write that changed content shows in the content tables themselves.
 */
export async function tableChecksum(t: TestApp): Promise<string> {
  const tables = await t.database.query<{ name: string }>(`
    SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name NOT IN ('api_tokens', '_prisma_migrations', 'content_changes', 'content_change_marks', 'content_generations', 'collection_generations')
     ORDER BY 1`);
  const parts: string[] = [];
  for (const { name } of tables) {
    const [row] = await t.database.query<{ n: number; h: string }>(
      `SELECT count(*)::int AS n, md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS h FROM "${name}" x`,
    );
    parts.push(`${name}: ${row.n} rows, ${row.h}`);
  }
  return parts.join('\n');
}

/*
 * Generators for the classes of input issue 14 §4 found answering 500. Every fuzz file draws from
 * them, so each class is generated, not only listed.
 */

/** A string carrying a NUL or an unpaired UTF-16 surrogate somewhere. */
export const unstorableString: fc.Arbitrary<string> = fc
  .tuple(fc.string({ maxLength: 8 }), fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d'), fc.string({ maxLength: 8 }))
  .map(([a, bad, b]) => a + bad + b);

/** Integers no PostgreSQL `integer` column holds (ids, collection ids), as numbers and as text. */
export const outOfRangeInt: fc.Arbitrary<number | string> = fc.oneof(
  fc.integer({ min: 2 ** 31, max: Number.MAX_SAFE_INTEGER }),
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: -(2 ** 31) - 1 }),
  fc.constantFrom(0, -1, 2 ** 53 + 2, 1e20, -1e20),
  fc.bigInt({ min: 2n ** 31n, max: 2n ** 80n }).map(String),
);

const pad = (n: number, width: number) => String(n).padStart(width, '0');
/** Days and date-times at and beyond both ends of the four-digit calendar, with extreme offsets. */
export const edgeDate: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('0000', '0001', '9999', '10000', '+275760', '-000001'),
    fc.integer({ min: 1, max: 12 }),
    fc.integer({ min: 1, max: 31 }),
    fc.option(fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.constantFrom('Z', '+14:00', '-14:00', '-00:01', '+0100', '-1400', ''))),
  )
  .map(([y, m, d, time]) => `${y}-${pad(m, 2)}-${pad(d, 2)}${time ? `T${pad(time[0], 2)}:${pad(time[1], 2)}:59${time[2]}` : ''}`);

/**
 * How deep and in what shape to nest JSON text past the limit: JSON.parse accepts it, recursion
 * does not. Generated as a spec (a failure report stays short) and turned into text by `nestedJsonText`.
 */
export const deepJson = fc.record({ depth: fc.integer({ min: 65, max: 20_000 }), shape: fc.constantFrom('array' as const, 'object' as const, 'mixed' as const) });

export function nestedJsonText(spec: { depth: number; shape: 'array' | 'object' | 'mixed' }): string {
  const opens: string[] = [];
  const closes: string[] = [];
  for (let i = 0; i < spec.depth; i++) {
    const array = spec.shape === 'array' || (spec.shape === 'mixed' && i % 2 === 0);
    opens.push(array ? '[' : '{"a":');
    closes.push(array ? ']' : '}');
  }
  return opens.join('') + '1' + closes.reverse().join('');
}

/** Percent-encoding no URL decoder accepts: a bare `%`, non-hex digits, cut or invalid UTF-8 sequences. */
export const malformedPercent: fc.Arbitrary<string> = fc
  .tuple(fc.stringMatching(/^[a-z0-9-]{0,4}$/), fc.constantFrom('%', '%z', '%zz', '%g0', '%E0%A4%A', '%C0', '%ED%A0%80', '%FF%FE', '%C3'), fc.stringMatching(/^[a-z-]{0,4}$/))
  .map(([a, bad, b]) => a + bad + b);

/** Any value of the classes above that can stand in a JSON body. */
export const badValue: fc.Arbitrary<unknown> = fc.oneof(unstorableString, outOfRangeInt, edgeDate, fc.array(unstorableString, { minLength: 1, maxLength: 2 }), unstorableString.map((k) => ({ [k]: 1 })));
