import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fuzzWorld, tableChecksum } from '../fuzz/harness.ts';
import { upload } from '../assets/helpers.ts';

/**
 * Issue 27 §5: odd clients. Media types and encodings a route does not take, numbers written the
 * way no number field means them, LIKE wildcards in searches, prototype-named keys, malformed
 * query strings and JSON text in `where`: each a clear 4xx naming the problem, nothing written.
 */
describe('odd clients', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  let projectUuid: string;
  let before: string;
  beforeAll(async () => {
    t = await startTestApp({ env: { BODY_LIMIT_BYTES: '65536' } });
    const w = await fuzzWorld(t);
    headers = w.p.headers;
    projectUuid = w.p.uuid;
  });
  afterAll(async () => t?.close());
  beforeEach(async () => {
    before = await tableChecksum(t);
  });

  const send = (method: string, url: string, extra: Record<string, string>, payload?: string | Buffer) =>
    t.app.inject({ method: method as 'POST', url, headers: { ...headers, ...extra }, payload });
  const entry = JSON.stringify({ data: { title: 'odd' } });

  describe('media types and charsets a route does not take: 415 before the body is read', () => {
    it.each([
      ['text/plain', entry],
      ['text/plain; charset=utf-8', entry],
      ['application/xml', '<data><title>odd</title></data>'],
      ['application/x-www-form-urlencoded', 'data[title]=odd'],
      ['application/json; charset=utf-16', entry],
      ['application/json; charset=iso-8859-1', entry],
    ])('POST /api/posts with %s', async (type, payload) => {
      const res = await send('POST', '/api/posts', { 'content-type': type }, payload);
      expect(res.statusCode, res.body).toBe(415);
      expect(res.json()).toEqual({ message: expect.any(String) });
      expect(await tableChecksum(t)).toBe(before);
    });

    it('GraphQL answers text/plain with 415 in its own shape', async () => {
      const res = await send('POST', '/graphql', { 'content-type': 'text/plain' }, JSON.stringify({ query: '{ __typename }' }));
      expect(res.statusCode).toBe(415);
      expect(res.json().errors[0].extensions).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 });
    });

    it('an upload route answers a JSON body with 415', async () => {
      const res = await send('POST', '/api/files', { 'content-type': 'application/json' }, JSON.stringify({ file: 'x' }));
      expect(res.statusCode, res.body).toBe(415);
      expect(res.json().message).toContain('multipart/form-data');
    });

    it('UTF-8 JSON, labelled or not, is taken', async () => {
      for (const type of ['application/json', 'application/json; charset=utf-8', 'application/json;charset="UTF-8"']) {
        const res = await send('POST', '/api/posts', { 'content-type': type }, JSON.stringify({ data: { title: 'é ✓' } }));
        expect(res.statusCode, `${type}: ${res.body}`).toBe(201);
        expect(res.json().fields.title).toBe('é ✓');
      }
    });
  });

  describe('Content-Encoding: decoded within the body limit, or 415', () => {
    const body = JSON.stringify({ data: { title: 'compressed' } });
    it.each([
      ['gzip', gzipSync(body)],
      ['deflate', deflateSync(body)],
      ['br', brotliCompressSync(body)],
      ['GZIP', gzipSync(body)],
    ])('a %s body is decoded', async (coding, payload) => {
      const res = await send('POST', '/api/posts', { 'content-type': 'application/json', 'content-encoding': coding }, payload);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().fields.title).toBe('compressed');
    });

    it('a gzip GraphQL request is decoded', async () => {
      const res = await send('POST', '/graphql', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, gzipSync(JSON.stringify({ query: '{ __typename }' })));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ data: { __typename: 'Query' } });
    });

    it('a plain body labelled gzip is 400 naming the coding', async () => {
      const res = await send('POST', '/api/posts', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toEqual({ message: 'The request body is not valid gzip data.' });
      expect(await tableChecksum(t)).toBe(before);
    });

    it('a body that decodes past the body limit is 413, however small it arrives', async () => {
      const bomb = gzipSync(JSON.stringify({ data: { title: 'x'.repeat(50 * 65536) } }));
      expect(bomb.length).toBeLessThan(65536);
      const res = await send('POST', '/api/posts', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, bomb);
      expect(res.statusCode, res.body).toBe(413);
      expect(await tableChecksum(t)).toBe(before);
    });

    it.each([
      ['compress', 'application/json'],
      ['gzip, br', 'application/json'],
      ['zstd', 'application/json'],
    ])('Content-Encoding %s is 415', async (coding, type) => {
      const res = await send('POST', '/api/posts', { 'content-type': type, 'content-encoding': coding }, body);
      expect(res.statusCode, res.body).toBe(415);
      expect(res.json().message).toContain('Content-Encoding');
      expect(await tableChecksum(t)).toBe(before);
    });

    it('an encoded upload is 415', async () => {
      const res = await send('POST', '/api/files', { 'content-type': 'multipart/form-data; boundary=x', 'content-encoding': 'gzip' }, gzipSync('--x--\r\n'));
      expect(res.statusCode, res.body).toBe(415);
    });
  });

  describe('numbers are read in decimal notation only', () => {
    it.each(['0x10', '0X1A', '0b1', '0o7', 'Infinity', '-Infinity', '1_000', '12px'])('a number field refuses %j', async (views) => {
      const res = await t.request({ method: 'POST', url: '/api/posts', headers, body: { data: { title: 'n', views } } });
      expect(res.status, res.text).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['data.views']);
      expect(await tableChecksum(t)).toBe(before);
    });

    it.each([
      ['16', 16],
      [' -2.5 ', -2.5],
      ['1e3', 1000],
      ['.5', 0.5],
    ])('a number field takes %j as %d', async (views, stored) => {
      const res = await t.request({ method: 'POST', url: '/api/posts', headers, body: { data: { title: 'n', views } } });
      expect(res.status, res.text).toBe(201);
      expect(res.body.fields.views).toBe(stored);
    });

    it('page numbers of the users list are decimal too', async () => {
      for (const q of ['page=0x2', 'per_page=0x10', 'page=Infinity']) {
        const res = await t.request({ method: 'GET', url: `/api/project/users?${q}`, headers });
        expect(res.status, `${q}: ${res.text}`).toBe(422);
      }
      expect((await t.request({ method: 'GET', url: '/api/project/users?page=1&per_page=10', headers })).status).toBe(200);
    });
  });

  describe('searches take % and _ literally', () => {
    it('users: ?search=_ and ?search=%25 find only addresses holding them', async () => {
      for (const email of ['first_last@example.com', 'firstlast@example.com']) {
        const res = await t.request({ method: 'POST', url: '/api/auth/signup', headers: { 'project-id': projectUuid }, body: { email, password: 'correct horse battery' } });
        expect(res.status, res.text).toBe(201);
      }
      const emails = async (search: string) =>
        (await t.request({ method: 'GET', url: `/api/project/users?search=${search}`, headers })).body.data.map((u: { email: string }) => u.email).sort();
      expect(await emails('_')).toEqual(['first_last@example.com']);
      expect(await emails('%25')).toEqual([]);
      expect(await emails('%5C')).toEqual([]);
      expect(await emails('first')).toEqual(['first_last@example.com', 'firstlast@example.com']);
    });

    it('files: ?search=_ and ?search=%25 find only names holding them', async () => {
      for (const filename of ['report_2024.txt', 'report2024.txt', '100%.txt']) {
        expect((await upload(t, headers, { filename, contentType: 'text/plain', content: 'x' })).status).toBe(201);
      }
      const names = async (search: string) =>
        (await t.request({ method: 'GET', url: `/api/files?search=${search}`, headers })).body.data.map((f: { original_filename: string }) => f.original_filename).sort();
      expect(await names('_')).toEqual(['report_2024.txt']);
      expect(await names('%25')).toEqual(['100%.txt']);
      expect(await names('report')).toEqual(['report2024.txt', 'report_2024.txt']);
    });
  });

  describe('a key named __proto__ is refused in every map (422 naming it)', () => {
    const manifest = () => t.request({ method: 'GET', url: '/api/project/trusted-documents', headers });

    it('the trusted-document manifest is not replaced by a body whose only key is __proto__', async () => {
      const put = (payload: string) => send('PUT', '/api/project/trusted-documents', { 'content-type': 'application/json' }, payload);
      expect((await put(JSON.stringify({ documents: ['{ __typename }'] }))).statusCode).toBe(200);
      const kept = (await manifest()).body;
      expect(kept.documents).toHaveLength(1);
      const res = await put('{"documents":{"__proto__":"{ __typename }"}}');
      expect(res.statusCode, res.body).toBe(422);
      expect(Object.keys(res.json().errors)).toEqual(['documents.__proto__']);
      expect((await manifest()).body).toEqual(kept);
    });

    it.each([
      ['entry data', '/api/posts', '{"data":{"title":"p","meta":{"__proto__":{"admin":true}}}}', 'data.meta.__proto__'],
      ['a JSON field', '/api/posts', '{"data":{"title":"p","meta":{"a":[{"__proto__":1}]}}}', 'data.meta.a.0.__proto__'],
      ['the body itself', '/api/posts', '{"data":{"title":"p"},"__proto__":1}', '__proto__'],
      ['GraphQL variables', '/graphql', JSON.stringify({ query: 'mutation($d: JSON!) { createEntry(collection: "posts", data: $d) { uuid } }' }).replace('}"}', '}","variables":{"d":{"title":"p","__proto__":{"x":1}}}}'), 'variables.d.__proto__'],
    ])('in %s', async (_what, url, payload, key) => {
      const res = await send('POST', url, { 'content-type': 'application/json' }, payload);
      const body = res.json();
      const errors = url === '/graphql' ? body.errors[0].extensions.errors : body.errors;
      expect(res.statusCode, res.body).toBe(422);
      expect(Object.keys(errors)).toEqual([key]);
      expect(await tableChecksum(t)).toBe(before);
    });

    it.each([
      ['/api/posts?where[__proto__][eq]=1', 'where.__proto__.eq'],
      ['/api/posts?%5F%5Fproto%5F%5F[x]=1', '__proto__.x'],
      ['/api/posts?__proto__=1', '__proto__'],
    ])('in the query string: %s', async (url, key) => {
      const res = await t.request({ method: 'GET', url, headers });
      expect(res.status, res.text).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual([key]);
    });

    it('in JSON written inline in a GraphQL document', async () => {
      const res = await t.graphql('mutation { createEntry(collection: "posts", data: { title: "p", meta: { __proto__: { x: 1 } } }) { uuid } }', undefined, headers);
      expect(res.body.errors[0].message, JSON.stringify(res.body)).toContain('"__proto__" (JSON.meta.__proto__) is not allowed');
      expect(res.body.data ?? null).toBeNull();
      expect(await tableChecksum(t)).toBe(before);
    });
  });

  describe('malformed percent-encoding in the query string is 400, as in the path', () => {
    it.each([
      ['/api/posts?locale=%zz', 'locale'],
      ['/api/posts?where[title][eq]=%ff', 'where.title.eq'],
      ['/api/posts?where[title][eq]=a%E0%A4%A', 'where.title.eq'],
      ['/api/posts?where[title][like]=%ED%A0%80', 'where.title.like'],
      ['/api/files?search=100%', 'search'],
      ['/api/posts?loc%zzale=en', 'loc%zzale'],
      ['/api/project/users?search=%C3', 'search'],
    ])('%s', async (url, key) => {
      const res = await t.request({ method: 'GET', url, headers });
      expect(res.status, res.text).toBe(400);
      expect(res.body.message).toContain('The URL is malformed');
      expect(Object.keys(res.body.errors)).toEqual([key]);
    });

    it('on GraphQL over GET, in GraphQL shape', async () => {
      const res = await t.request({ method: 'GET', url: '/graphql?query=%7B__typename%7D&variables=%zz', headers });
      expect(res.status, res.text).toBe(400);
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', errors: { variables: [expect.any(String)] } });
    });

    it('well-formed encodings still decode (%25, +, UTF-8)', async () => {
      const res = await t.request({ method: 'GET', url: '/api/posts?where[title][eq]=100%25+%C3%A9', headers });
      expect(res.status, res.text).toBe(200);
    });
  });

  describe('JSON text inside a where value is held to the same rules as the request', () => {
    it.each([
      ['a NUL escape', '{"a":"\\u0000"}', /NUL/],
      ['a lone surrogate escape', '{"a":"\\ud800"}', /surrogate/],
      ['a NUL escape in a list', '["x","\\u0000"]', /NUL/],
      ['a reserved key', '{"__proto__":{"a":1}}', /reserved/],
    ])('%s on a json field: 422 naming the parameter', async (_what, json, message) => {
      const op = json.startsWith('[') ? 'in' : 'eq';
      const res = await t.request({ method: 'GET', url: `/api/posts?where[meta][${op}]=${encodeURIComponent(json)}`, headers });
      expect(res.status, res.text).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual([`where.meta.${op}`]);
      expect(res.body.errors[`where.meta.${op}`][0]).toMatch(message);
    });

    it('the same through GraphQL', async () => {
      const res = await t.graphql('query($w: JSON) { entries(collection: "posts", where: $w) { total } }', { w: { meta: { eq: '{"a":"\\u0000"}' } } }, headers);
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', status: 422, errors: { 'where.meta.eq': [expect.stringMatching(/NUL/)] } });
    });
  });
});
