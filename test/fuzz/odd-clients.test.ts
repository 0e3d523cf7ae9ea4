import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { upload } from '../assets/helpers.ts';
import { TIMEOUT, expectSane, fuzzParams, fuzzWorld, malformedPercent, tableChecksum } from './harness.ts';

/**
 * Issue 27 §5, generated: media types, charsets and content codings; malformed percent-encoding in
 * any query parameter; `__proto__` keys at any depth of any accepted map; number strings; LIKE
 * wildcards in searches. Each property states the whole rule, so any generated case that breaks it
 * fails with the seed that reproduces it.
 */
describe('fuzz: odd clients (issue 27 §5)', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  beforeAll(async () => {
    t = await startTestApp();
    headers = (await fuzzWorld(t)).p.headers;
  });
  afterAll(async () => t?.close());

  const CODINGS: Record<string, ((b: string) => Buffer) | null> = {
    '': (b) => Buffer.from(b),
    identity: (b) => Buffer.from(b),
    gzip: (b) => gzipSync(b),
    deflate: (b) => deflateSync(b),
    br: (b) => brotliCompressSync(b),
    compress: null,
    zstd: null,
    'gzip, br': null,
  };

  it('a body is taken only as UTF-8 JSON in a known coding; everything else is 415 and writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('application/json', 'text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'text/json', 'application/graphql'),
        fc.constantFrom('', '; charset=utf-8', '; charset=UTF8', '; charset=utf-16', '; charset=latin1', '; charset='),
        fc.constantFrom(...Object.keys(CODINGS)),
        fc.constantFrom('/api/posts', '/graphql'),
        async (type, charset, coding, url) => {
          const json = url === '/graphql' ? JSON.stringify({ query: '{ __typename }' }) : JSON.stringify({ data: { title: 'fz' } });
          const encode = CODINGS[coding];
          const takes = type === 'application/json' && ['', '; charset=utf-8', '; charset=UTF8'].includes(charset) && encode !== null;
          const before = await tableChecksum(t);
          const res = await t.app.inject({
            method: 'POST',
            url,
            headers: { ...headers, 'content-type': type + charset, ...(coding ? { 'content-encoding': coding } : {}) },
            payload: (encode ?? CODINGS[''])!(json),
          });
          const what = `POST ${url} ${type}${charset} coding=${coding}`;
          expectSane({ status: res.statusCode, text: res.body }, what);
          if (takes) expect(res.statusCode, `${what} → ${res.body}`).toBeLessThan(300);
          else {
            expect(res.statusCode, `${what} → ${res.body}`).toBe(415);
            expect(await tableChecksum(t), `${what} was refused but changed the tables`).toBe(before);
          }
        },
      ),
      fuzzParams(),
    );
  }, TIMEOUT);

  it('malformed percent-encoding in any query parameter, name or value, is 400 naming one parameter', async () => {
    await fc.assert(
      fc.asyncProperty(
        malformedPercent,
        fc.boolean(),
        fc.constantFrom('/api/posts', '/api/files', '/api/webhooks', '/api/project/users', '/api/posts/{0}', '/graphql'),
        fc.constantFrom('where[title][eq]', 'locale', 'search', 'page', 'variables', 'where[meta][eq]'),
        async (bad, inName, base, param) => {
          // The generator can splice a complete sequence (`%E0%A4%A` + `d`): that one is well-formed.
          fc.pre(!decodes(bad));
          const url = `${base.replace('{0}', '00000000-0000-4000-8000-000000000000')}?${inName ? `${param}${bad}=1` : `${param}=${bad}`}`;
          const res = await t.request({ method: 'GET', url, headers });
          expectSane(res, `GET ${url}`);
          expect(res.status, `GET ${url} → ${res.text}`).toBe(400);
          const errors = base === '/graphql' ? res.body.errors[0].extensions.errors : res.body.errors;
          expect(Object.keys(errors), `GET ${url} → ${res.text}`).toHaveLength(1);
        },
      ),
      fuzzParams(),
    );
  }, TIMEOUT);

  const decodes = (s: string): boolean => {
    try {
      decodeURIComponent(s);
      return true;
    } catch {
      return false;
    }
  };

  /** A JSON value with a `__proto__` key planted at a generated depth, and the key's dotted path. */
  const planted = fc
    .tuple(fc.constant('__proto__'), fc.array(fc.oneof(fc.constantFrom('a', 'b', 'x-y'), fc.nat(2)), { maxLength: 5 }))
    .map(([key, trail]) => {
      let value: unknown = JSON.parse(`{"${key}":1}`);
      for (let i = trail.length - 1; i >= 0; i--) {
        const step = trail[i];
        value = typeof step === 'number' ? [...Array<unknown>(step).fill(0), value] : { [step]: value };
      }
      return { key, value, path: [...trail.map(String), key].join('.') };
    });

  it('a key named __proto__ at any depth of any accepted map is 422 naming it', async () => {
    const targets = fc.constantFrom(
      { url: '/api/posts', wrap: (v: string) => `{"data":{"title":"p","meta":${v}}}`, prefix: 'data.meta.' },
      { url: '/api/bulk/posts/entries', wrap: (v: string) => `{"items":[{"data":{"title":"p","meta":${v}}}]}`, prefix: 'items.0.data.meta.' },
      { url: '/api/webhooks', wrap: (v: string) => `{"name":"h","url":"https://93.184.216.34/","events":["content.created"],"sources":["api"],"headers":${v}}`, prefix: 'headers.' },
      { url: '/api/project/trusted-documents', wrap: (v: string) => `{"documents":${v}}`, prefix: 'documents.', method: 'PUT' },
      { url: '/graphql', wrap: (v: string) => `{"query":"mutation($d: JSON!) { createEntry(collection: \\"posts\\", data: $d) { uuid } }","variables":{"d":{"title":"p","meta":${v}}}}`, prefix: 'variables.d.meta.' },
    );
    await fc.assert(
      fc.asyncProperty(targets, planted, async (target, p) => {
        const before = await tableChecksum(t);
        // JSON.stringify writes an own __proto__ key as such; the parser on the server keeps it as data.
        const payload = target.wrap(JSON.stringify(p.value));
        const res = await t.app.inject({ method: (target.method ?? 'POST') as 'POST', url: target.url, headers: { ...headers, 'content-type': 'application/json' }, payload });
        const what = `${target.url} ${payload.slice(0, 200)}`;
        expect(res.statusCode, `${what} → ${res.body}`).toBe(422);
        const body = res.json();
        const errors = target.url === '/graphql' ? body.errors[0].extensions.errors : body.errors;
        const expected = (target.prefix + p.path).split('.');
        // The guard shows the first six segments of a deep path, then an ellipsis.
        expect(Object.keys(errors), what).toEqual([expected.length > 6 ? [...expected.slice(0, 6), '…'].join('.') : expected.join('.')]);
        expect(await tableChecksum(t), `${what} was refused but changed the tables`).toBe(before);
      }),
      fuzzParams(),
    );
  }, TIMEOUT);

  const DECIMAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;
  const numberText = fc.oneof(
    fc.double({ noNaN: true }).map(String),
    fc.integer().map((n) => `0x${Math.abs(n).toString(16)}`),
    fc.integer().map((n) => `0b${Math.abs(n).toString(2)}`),
    fc.integer().map((n) => `0o${Math.abs(n).toString(8)}`),
    fc.stringMatching(/^\s?[+-]?\d{0,4}(\.\d{0,3})?([eE][+-]?\d{1,3})?[a-z_]?\s?$/),
    fc.constantFrom('Infinity', '-Infinity', 'NaN', '1_000', '1,5', '١٢', ' ', '+', '.', 'e5'),
  );

  it('a number field takes exactly the strings written in decimal notation, as their value', async () => {
    await fc.assert(
      fc.asyncProperty(numberText, async (views) => {
        const res = await t.request({ method: 'POST', url: '/api/posts', headers, body: { data: { title: 'n', views } } });
        const value = Number(views.trim());
        const what = `views=${JSON.stringify(views)} → ${res.status} ${res.text.slice(0, 200)}`;
        if (views.trim() === '') return; // empty means "no value"
        if (DECIMAL.test(views) && Number.isFinite(value)) {
          expect(res.status, what).toBe(201);
          expect(res.body.fields.views, what).toBe(value);
        } else {
          expect(res.status, what).toBe(422);
          expect(Object.keys(res.body.errors), what).toEqual(['data.views']);
        }
      }),
      fuzzParams(),
    );
  }, TIMEOUT);

  it('?search on files matches its text literally: %, _ and \\ are characters, not patterns', async () => {
    const names: string[] = [];
    for (const filename of ['a%b.txt', 'a_b.txt', 'ab.txt', '%%.txt', '__.txt', 'A_B.TXT', 'b%_a.txt']) {
      const res = await upload(t, headers, { filename, contentType: 'text/plain', content: 'x' });
      expect(res.status).toBe(201);
      names.push(res.body.original_filename as string);
    }
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[%_\\ab]{1,3}$/), async (search) => {
        const res = await t.request({ method: 'GET', url: `/api/files?search=${encodeURIComponent(search)}&paginate=100`, headers });
        expect(res.status, res.text).toBe(200);
        const found = (res.body.data as Array<{ original_filename: string; filename: string; mime_type: string }>).filter((f) => names.includes(f.original_filename));
        const holds = (s: string) => s.toLowerCase().includes(search.toLowerCase());
        for (const f of found) expect(holds(f.original_filename) || holds(f.filename) || holds(f.mime_type), `${search} found ${f.original_filename}`).toBe(true);
        const expected = names.filter(holds).sort();
        expect(found.map((f) => f.original_filename).filter(holds).sort(), `search=${JSON.stringify(search)}`).toEqual(expected);
      }),
      fuzzParams(),
    );
  }, TIMEOUT);
});
