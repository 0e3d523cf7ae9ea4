import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { TIMEOUT, expectConsistentDatabase, expectSane, fuzzParams, fuzzWorld, hostileObject, jsonValue } from './harness.ts';

/** Entry write bodies and bulk bodies: wrong types, huge strings, deep nesting, `__proto__` keys. */
const entryBody = fc.oneof(
  jsonValue,
  hostileObject,
  fc.record({ data: fc.oneof(hostileObject, jsonValue), locale: fc.option(jsonValue), state: fc.option(fc.oneof(fc.constantFrom('draft', 'published', 'PUBLISHED'), jsonValue)) }, { requiredKeys: ['data'] }),
);
const bulkItem = fc.oneof(
  fc.record({ data: fc.oneof(hostileObject, jsonValue), locale: fc.option(jsonValue), state: fc.option(fc.oneof(fc.constantFrom('draft', 'published'), jsonValue)), uuid: fc.option(fc.oneof(fc.uuid(), jsonValue)) }),
  jsonValue,
);
const bulkBody = fc.oneof(
  jsonValue,
  hostileObject,
  fc.record({ items: fc.oneof(fc.array(bulkItem, { maxLength: 8 }), jsonValue) }),
  fc.record({ uuids: fc.oneof(fc.array(fc.oneof(fc.uuid(), jsonValue), { maxLength: 6 }), jsonValue), force: fc.option(jsonValue) }),
  fc.constant({ items: Array.from({ length: 51 }, () => ({ data: { title: 'x' } })) }),
);

describe('fuzz: entry and bulk writes', () => {
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

  it('answers random entry write bodies with 2xx/4xx JSON and never half-writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('POST', 'PUT', 'PATCH'), fc.nat(2), entryBody, async (method, i, body) => {
        const url = method === 'POST' ? '/api/posts' : `/api/posts/${uuids[i]}`;
        expectSane(await t.request({ method, url, headers, body }), `${method} ${url} ${JSON.stringify(body)?.slice(0, 200)}`);
      }),
      fuzzParams(),
    );
    await expectConsistentDatabase(t);
  }, TIMEOUT);

  it('answers random bulk bodies with 2xx/4xx JSON and never half-writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('POST', 'PATCH', 'DELETE'), bulkBody, async (method, body) => {
        const url = '/api/bulk/posts/entries';
        expectSane(await t.request({ method, url, headers, body }), `${method} ${url} ${JSON.stringify(body)?.slice(0, 200)}`);
      }),
      fuzzParams(),
    );
    await expectConsistentDatabase(t);
  }, TIMEOUT);

  it('answers bodies that are not JSON objects at all', async () => {
    const text = fc.oneof(fc.string({ maxLength: 50 }), fc.constantFrom('{', '[', '{"data":', 'null', '"x"', '{"__proto__":{"polluted":1},"data":{"title":"p"}}', '\u0000'));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/api/posts', '/api/bulk/posts/entries', `/api/posts/{uuid}`), text, async (url, payload) => {
        const u = url.replace('{uuid}', uuids[0]);
        const method = u.includes('bulk') || u === '/api/posts' ? 'POST' : 'PATCH';
        expectSane(await t.request({ method, url: u, headers: { ...headers, 'content-type': 'application/json' }, payload }), `${method} ${u} ${JSON.stringify(payload)}`);
        expectSane({ status: ({} as { polluted?: number }).polluted ? 500 : 200, text: '{}' }, 'Object.prototype polluted');
      }),
      fuzzParams(),
    );
    await expectConsistentDatabase(t);
  }, TIMEOUT);
});
