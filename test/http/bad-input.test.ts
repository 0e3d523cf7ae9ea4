import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fuzzWorld, tableChecksum } from '../fuzz/harness.ts';
import { upload } from '../assets/helpers.ts';

/**
 * Issue 14 §4: input no operation can process is refused at the edge with a 4xx naming the
 * parameter or field, never a 500, and nothing is written. One block per class of the issue.
 */
type Case = { method: string; url: string; body?: unknown; payload?: string; status: number; key: string };

const nested = (depth: number, leaf = '1'): string => '['.repeat(depth) + leaf + ']'.repeat(depth);
const webhook = (extra: Record<string, unknown>) => ({ name: 'h', url: 'https://93.184.216.34/', events: ['content.created'], sources: ['api'], ...extra });
const ENTRIES_WHERE = 'query($w: JSON) { entries(collection: "posts", where: $w) { total } }';
const CREATE_ENTRY = 'mutation($d: JSON!) { createEntry(collection: "posts", data: $d) { uuid } }';

describe('bad input answers 4xx, never 500, and writes nothing', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  let uuid: string;
  let before: string;
  beforeAll(async () => {
    t = await startTestApp();
    const w = await fuzzWorld(t);
    headers = w.p.headers;
    uuid = w.uuids[0];
  });
  afterAll(async () => t?.close());
  beforeEach(async () => {
    before = await tableChecksum(t);
  });

  async function expectRefused(c: Case): Promise<Record<string, unknown>> {
    const url = c.url.replace('{uuid}', uuid);
    const res = await t.request({ method: c.method, url, headers: c.payload ? { ...headers, 'content-type': 'application/json' } : headers, body: c.body, payload: c.payload });
    const body = res.body as Record<string, unknown>;
    // GraphQL over HTTP: a response that carries `data` (a nullable root field that failed) is 2xx;
    // the refusal's class and status are in the error's extensions. Refused before execution: no data.
    const withData = url.startsWith('/graphql') && body.data != null;
    expect(res.status, `${c.method} ${url.slice(0, 120)} → ${res.text.slice(0, 300)}`).toBe(withData ? 200 : c.status);
    if (withData) expect((body.errors as Array<{ extensions: { status: number } }>)[0].extensions.status, res.text.slice(0, 300)).toBe(c.status);
    const fieldErrors = url.startsWith('/graphql')
      ? (body.errors as Array<{ extensions: { errors: Record<string, string[]> } }>)[0].extensions.errors
      : (body.errors as Record<string, string[]>);
    expect(Object.keys(fieldErrors ?? {}), res.text.slice(0, 300)).toEqual([c.key]);
    expect(await tableChecksum(t), 'tables changed by a refused request').toBe(before);
    return body;
  }

  describe('NUL characters and unpaired UTF-16 surrogates in any string', () => {
    it.each<Case>([
      { method: 'GET', url: '/api/posts?locale=%00', status: 422, key: 'locale' },
      { method: 'GET', url: '/api/posts?state=draft%00', status: 422, key: 'state' },
      { method: 'GET', url: '/api/posts?where[title][eq]=a%00b', status: 422, key: 'where.title.eq' },
      { method: 'GET', url: '/api/posts?where[title][like]=%00', status: 422, key: 'where.title.like' },
      { method: 'GET', url: '/api/posts?where[ti%00tle][eq]=a', status: 422, key: 'where' },
      { method: 'GET', url: '/api/files?search=%00', status: 422, key: 'search' },
      { method: 'GET', url: '/api/posts/%00', status: 400, key: 'uuid' },
      { method: 'POST', url: '/api/posts', body: { data: { title: 'a\u0000b' } }, status: 422, key: 'data.title' },
      { method: 'POST', url: '/api/posts', body: { data: { title: '\ud800' } }, status: 422, key: 'data.title' },
      { method: 'POST', url: '/api/posts', body: { data: { title: 'ok', meta: { a: 'x\u0000' } } }, status: 422, key: 'data.meta.a' },
      { method: 'POST', url: '/api/posts', body: { data: { title: 'ok', meta: { 'k\u0000': 1 } } }, status: 422, key: 'data.meta' },
      { method: 'POST', url: '/api/posts', body: { data: { title: 'ok', meta: ['\udc00'] } }, status: 422, key: 'data.meta.0' },
      { method: 'PATCH', url: '/api/posts/{uuid}', body: { data: { title: 'a\u0000' } }, status: 422, key: 'data.title' },
      { method: 'POST', url: '/api/bulk/posts/entries', body: { items: [{ data: { title: 'fine' } }, { data: { title: '\u0000' } }] }, status: 422, key: 'items.1.data.title' },
      { method: 'POST', url: '/api/webhooks', body: webhook({ name: 'a\u0000' }), status: 422, key: 'name' },
      { method: 'POST', url: '/api/webhooks', body: webhook({ description: '\ud83d' }), status: 422, key: 'description' },
      { method: 'POST', url: '/api/collections', body: { name: 'a\u0000', slug: 'nul' }, status: 422, key: 'name' },
      { method: 'POST', url: '/api/collections', body: { name: 'Sur', slug: 'sur', description: '\ud800x' }, status: 422, key: 'description' },
      { method: 'POST', url: '/api/collections/posts/fields', body: { type: 'text', label: 'L\u0000', name: 'nul' }, status: 422, key: 'label' },
      { method: 'POST', url: '/graphql', body: { query: ENTRIES_WHERE, variables: { w: { title: { eq: 'a\u0000' } } } }, status: 422, key: 'variables.w.title.eq' },
      { method: 'POST', url: '/graphql', body: { query: CREATE_ENTRY, variables: { d: { title: '\udfff' } } }, status: 422, key: 'variables.d.title' },
      { method: 'POST', url: '/graphql', body: { query: '{ project { uuid } }\u0000' }, status: 400, key: 'query' },
      {
        method: 'GET',
        url: `/graphql?query=${encodeURIComponent(ENTRIES_WHERE)}&variables=${encodeURIComponent(JSON.stringify({ w: { title: { eq: 'a\u0000' } } }))}`,
        status: 422,
        key: 'variables.w.title.eq',
      },
    ])('$method $url $body → $status naming $key', async (c) => {
      const body = await expectRefused(c);
      expect(JSON.stringify(body)).toMatch(/NUL character|unpaired UTF-16 surrogate/);
    });

    it('upload file names (multipart, outside the parsed body)', async () => {
      const res = await upload(t, headers, { filename: 'a\u0000b.txt', contentType: 'text/plain', content: 'x' });
      expect(res.status).toBe(422);
      expect(res.body.errors.file[0]).toContain('NUL character');
      expect(await tableChecksum(t)).toBe(before);
    });
  });

  describe('bytes that are not UTF-8 in a JSON body: refused like a lone surrogate, never stored as U+FFFD', () => {
    const FF_FE_C3 = Buffer.from([0xff, 0xfe, 0xc3]);
    const OVERLONG_SLASH = Buffer.from([0xc0, 0xaf]);
    /** A JSON text with `bad` spliced in raw where `@@` stands. */
    const json = (text: string, bad: Buffer) => {
      const [before, after] = text.split('@@');
      return Buffer.concat([Buffer.from(before), bad, Buffer.from(after)]);
    };
    type ByteCase = { url: string; payload: Buffer; status: number; key: string };
    const cases: Array<ByteCase & { name: string }> = [];
    for (const [name, bad] of [['FF FE C3', FF_FE_C3], ['overlong C0 AF', OVERLONG_SLASH]] as const) {
      cases.push(
        { name, url: '/api/posts', payload: json('{"data":{"title":"a@@b"}}', bad), status: 422, key: 'data.title' },
        { name, url: '/api/posts', payload: json('{"data":{"title":"ok","ti@@tle":"x"}}', bad), status: 422, key: 'data' },
        { name, url: '/graphql', payload: json(JSON.stringify({ query: CREATE_ENTRY, variables: { d: { title: '@@' } } }), bad), status: 422, key: 'variables.d.title' },
        { name, url: '/graphql', payload: json('{"query":"{ entries(collection: \\"posts@@\\") { total } }"}', bad), status: 400, key: 'query' },
      );
    }

    it.each(cases)('$name: POST $url → $status naming $key', async (c) => {
      const res = await t.app.inject({ method: 'POST', url: c.url, headers: { ...headers, 'content-type': 'application/json' }, payload: c.payload });
      const body = res.json();
      expect(res.statusCode, res.body.slice(0, 300)).toBe(c.status);
      const fieldErrors = c.url === '/graphql' ? body.errors[0].extensions.errors : body.errors;
      expect(Object.keys(fieldErrors), res.body.slice(0, 300)).toEqual([c.key]);
      expect(fieldErrors[c.key][0]).toMatch(/not valid UTF-8/);
      if (c.url === '/graphql') expect(body.errors[0].extensions).toMatchObject({ code: c.status === 422 ? 'VALIDATION_FAILED' : 'BAD_REQUEST', status: c.status });
      expect(await tableChecksum(t), 'tables changed by a refused request').toBe(before);
    });

    it('answers with the shape and status of the lone-surrogate refusal', async () => {
      const bytes = await t.app.inject({ method: 'POST', url: '/api/posts', headers: { ...headers, 'content-type': 'application/json' }, payload: json('{"data":{"title":"@@"}}', FF_FE_C3) });
      const surrogate = await t.request({ method: 'POST', url: '/api/posts', headers, body: { data: { title: '\ud800' } } });
      expect(bytes.statusCode).toBe(surrogate.status);
      expect(Object.keys(bytes.json())).toEqual(Object.keys(surrogate.body));
      expect(Object.keys(bytes.json().errors)).toEqual(Object.keys(surrogate.body.errors));
    });

    it('still takes U+FFFD and every other character sent as valid UTF-8', async () => {
      const res = await t.app.inject({ method: 'POST', url: '/api/posts', headers: { ...headers, 'content-type': 'application/json' }, payload: Buffer.from(JSON.stringify({ data: { title: 'a\ufffd é 𝄞' } })) });
      expect(res.statusCode, res.body).toBe(201);
      expect(JSON.stringify(res.json())).toContain('"a\ufffd é 𝄞"');
    });
  });

  describe('integers beyond the column range', () => {
    it.each<Case>([
      { method: 'GET', url: '/api/posts?where[author][eq]=99999999999999', status: 422, key: 'where.author.eq' },
      { method: 'GET', url: '/api/posts?where[author][in]=1,2147483648', status: 422, key: 'where.author.in' },
      { method: 'GET', url: '/api/posts?where[author][not]=0', status: 422, key: 'where.author.not' },
      { method: 'POST', url: '/graphql', body: { query: ENTRIES_WHERE, variables: { w: { author: { eq: '99999999999' } } } }, status: 422, key: 'where.author.eq' },
      { method: 'POST', url: '/api/webhooks', body: webhook({ collection_ids: [99999999999] }), status: 422, key: 'collection_ids.0' },
      { method: 'POST', url: '/api/webhooks', body: webhook({ collection_ids: [2147483648] }), status: 422, key: 'collection_ids.0' },
    ])('$method $url $body → $status naming $key', async (c) => {
      await expectRefused(c);
    });
  });

  describe('dates at the edge of the calendar', () => {
    it.each<Case>([
      { method: 'GET', url: '/api/posts?where[created_at][eq]=9999-12-31', status: 422, key: 'where.created_at.eq' },
      { method: 'GET', url: '/api/posts?where[created_at][lte]=9999-12-31T23:59:59-14:00', status: 422, key: 'where.created_at.lte' },
      { method: 'GET', url: '/api/posts?where[updated_at][between]=2020-01-01,9999-12-31', status: 422, key: 'where.updated_at.between' },
      { method: 'GET', url: '/api/posts?where[published_at][gt]=9999-12-31T23:00:00-01:00', status: 422, key: 'where.published_at.gt' },
      { method: 'GET', url: '/api/posts?where[day][eq]=9999-12-31T23:59:59-14:00', status: 422, key: 'where.day.eq' },
      { method: 'POST', url: '/graphql', body: { query: ENTRIES_WHERE, variables: { w: { created_at: { eq: '9999-12-31' } } } }, status: 422, key: 'where.created_at.eq' },
    ])('$method $url $body → $status naming $key', async (c) => {
      await expectRefused(c);
    });

    it('still accepts the last whole day on instants and the last day on date fields', async () => {
      expect((await t.request({ method: 'GET', url: '/api/posts?where[created_at][lt]=9999-12-30', headers })).status).toBe(200);
      expect((await t.request({ method: 'GET', url: '/api/posts?where[created_at][lt]=9999-12-31T23:59:59Z', headers })).status).toBe(200);
      expect((await t.request({ method: 'GET', url: '/api/posts?where[day][eq]=9999-12-31', headers })).status).toBe(200);
    });
  });

  describe('JSON nested tens of thousands of levels', () => {
    it.each<Case>([
      { method: 'POST', url: '/api/posts', payload: `{"data":{"title":"deep","meta":${nested(30_000)}}}`, status: 422, key: 'data.meta.0.0.0.0.…' },
      { method: 'POST', url: '/api/bulk/posts/entries', payload: `{"items":${nested(30_000, '{"data":{"title":"x"}}')}}`, status: 422, key: 'items.0.0.0.0.0.…' },
      {
        method: 'POST',
        url: '/graphql',
        payload: JSON.stringify({ query: ENTRIES_WHERE, variables: { w: 'PLACEHOLDER' } }).replace('"PLACEHOLDER"', nested(30_000)),
        status: 422,
        key: 'variables.w.0.0.0.0.…',
      },
    ])('$method $url → $status naming $key', async (c) => {
      const body = await expectRefused(c);
      expect(JSON.stringify(body)).toContain('nested more than 64 levels');
    });

    it('GraphQL GET variables nested thousands of levels', async () => {
      const url = `/graphql?query=${encodeURIComponent(ENTRIES_WHERE)}&variables=${encodeURIComponent(`{"w":${nested(5_000)}}`)}`;
      await expectRefused({ method: 'GET', url, status: 422, key: 'variables.w.0.0.0.0.…' });
    });

    it('accepts JSON as deep as the limit allows', async () => {
      const res = await t.request({ method: 'POST', url: '/api/posts', headers: { ...headers, 'content-type': 'application/json' }, payload: `{"data":{"title":"ok","meta":${nested(60)}}}` });
      expect(res.status, res.text).toBe(201);
    });
  });

  describe('malformed URLs answer 400 with { message }', () => {
    it.each(['/api/posts/%', '/api/po%zzsts', '/api/posts/%E0%A4%A', '/graphql%'])('%s', async (url) => {
      const res = await t.request({ method: 'GET', url, headers });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: expect.stringContaining('The URL is malformed') });
    });
  });
});
