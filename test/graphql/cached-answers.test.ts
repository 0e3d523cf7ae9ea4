import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { world, posts } from '../helpers/world.ts';
import { countQueries } from '../helpers/sql-count.ts';
import { regularMediaType } from '../../src/graphql/server/cached-answers.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const LIST = 'query Posts($perPage: Int) { posts(perPage: $perPage) { data { uuid title } } }';

/**
 * Repeated published GraphQL reads are answered before Yoga (src/graphql/server/cached-answers.ts): the
 * same bytes and headers as the full path, with authentication, rate budget, abilities, trusted
 * documents and invalidation as strict as there.
 */
describe('GraphQL cached-answer fast path', () => {
  let t: TestApp;
  let p: TestProject;
  beforeAll(async () => {
    // The authentication cache on, as in production: a hit then sends no statement at all.
    ({ t, p } = await world({ app: { env: { AUTH_CACHE_MS: '3600000' } }, project: { name: 'Fast path' }, via: 'api', collections: [posts()] }));
    await api('POST', '/api/posts', { state: 'published', data: { title: 'One' } });
  }, 120_000);
  afterAll(() => t.close());

  function api(method: string, url: string, body?: unknown, headers: Record<string, string> = p.headers) {
    return t.request({ method, url, headers, body });
  }
  const post = (body: unknown, headers: Record<string, string> = {}, auth = p.headers) => api('POST', '/graphql', body, { ...auth, ...headers });

  it('answers a repeat with the bytes and headers the full path sent, for every Accept the regular processor serves', async () => {
    const accepts = [undefined, 'application/json', 'application/graphql-response+json', 'application/graphql-response+json, application/json', 'application/json;q=0.9, */*', 'application/*'];
    for (const [i, accept] of accepts.entries()) {
      const headers: Record<string, string> = accept ? { accept } : {};
      // A page size per round: the key does not depend on Accept, so each round needs its own answer.
      const body = { query: LIST, variables: { perPage: 10 + i } };
      const first = await post(body, headers);
      expect(first.status).toBe(200);
      expect(first.headers['x-cache']).toBeUndefined();
      // Statement-free once the authentication cache's change feed is connected (it may still be
      // connecting right after start on a busy machine; until then authentication asks the database).
      let counted = await countQueries(() => post(body, headers));
      for (const deadline = Date.now() + 10_000; counted.queries > 0 && Date.now() < deadline; ) {
        await new Promise((r) => setTimeout(r, 50));
        counted = await countQueries(() => post(body, headers));
      }
      const again = counted.result;
      expect(again.headers['x-cache'], `accept ${accept}`).toBe('HIT');
      expect(counted.queries).toBe(0);
      expect(again.status).toBe(200);
      expect(again.text).toBe(first.text);
      expect(again.headers['content-type'], `accept ${accept}`).toBe(first.headers['content-type']);
      expect(again.headers['x-request-id']).toBeDefined();
      expect(again.headers['ratelimit-remaining']).toBeDefined();
    }
  });

  it('tags a GET answer as the full path does and answers 304 to its ETag', async () => {
    const url = `/graphql?query=${encodeURIComponent(LIST)}&variables=${encodeURIComponent(JSON.stringify({ perPage: 2 }))}`;
    const first = await api('GET', url);
    expect(first.status).toBe(200);
    expect(first.headers.etag).toMatch(/^W\//);
    const again = await api('GET', url);
    expect(again.headers['x-cache']).toBe('HIT');
    expect(again.text).toBe(first.text);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['cache-control']).toBe('no-cache');
    const notModified = await api('GET', url, undefined, { ...p.headers, 'if-none-match': String(first.headers.etag) });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
    // A draft read is never tagged, cached or not.
    const draftUrl = `/graphql?query=${encodeURIComponent('{ posts(state: draft) { data { title } } }')}`;
    await api('GET', draftUrl);
    expect((await api('GET', draftUrl)).headers.etag).toBeUndefined();
  });

  it('keeps abilities, revocation and the rate budget as strict as the full path', async () => {
    const body = { query: LIST, variables: { perPage: 3 } };
    expect((await post(body)).status).toBe(200); // cached by the `*` token
    const repeat = await post(body);
    expect(repeat.headers['x-cache']).toBe('HIT');
    const cached = repeat.text;

    const writer = await p.tokenWith(['create']);
    const refused = await post(body, {}, writer);
    expect(refused.text).not.toBe(cached);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');

    const reader = await p.tokenWith(['read']);
    const readerHit = await post(body, {}, reader);
    expect(readerHit.headers['x-cache']).toBe('HIT');
    expect(readerHit.text).toBe(cached);
    const tokenId = (await t.database.query<{ id: number }>(`SELECT id FROM api_tokens WHERE token_hash = $1`, [sha256(reader.authorization.slice(7))]))[0]!.id;
    await api('DELETE', `/api/project/tokens/${tokenId}`).catch(() => undefined);
    await t.database.query(`UPDATE api_tokens SET revoked_at = now() WHERE id = $1`, [tokenId]);
    const deadline = Date.now() + 5000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) status = (await post(body, {}, reader)).status;
    expect(status).toBe(401);

    const before = Number((await post(body)).headers['ratelimit-remaining']);
    const after = Number((await post(body)).headers['ratelimit-remaining']);
    expect(after).toBe(before - 1);
  });

  it('never serves an answer older than a committed change', async () => {
    const body = { query: '{ posts { data { title } } }' };
    const first = await post(body);
    const hit = await post(body);
    expect(hit.headers['x-cache']).toBe('HIT');
    expect(hit.text).toBe(first.text);
    await api('POST', '/api/posts', { state: 'published', data: { title: 'Two' } });
    const after = await post(body);
    expect(after.headers['x-cache']).toBeUndefined();
    expect(after.body.data.posts.data.map((d: { title: string }) => d.title).sort()).toEqual(['One', 'Two']);
  });

  it('keeps answering a published read before Yoga through a draft save (per-collection invalidation)', async () => {
    const body = { query: '{ posts(perPage: 7) { data { title } } }' };
    const first = await post(body);
    expect((await post(body)).headers['x-cache']).toBe('HIT');
    const created = await api('POST', '/api/posts', { state: 'draft', data: { title: 'Draft only' } });
    expect(created.status).toBe(201);
    const afterDraft = await post(body);
    expect(afterDraft.headers['x-cache']).toBe('HIT');
    expect(afterDraft.text).toBe(first.text);
    // Its draft read is another key, answered fresh.
    const drafts = await post({ query: '{ posts(perPage: 7, state: draft) { data { title } } }' });
    expect(drafts.body.data.posts.data.map((d: { title: string }) => d.title)).toContain('Draft only');
  });

  it('answers a hash-only persisted query once the hash was seen with its text', async () => {
    const query = '{ posts(perPage: 1) { data { title } } }';
    const hashed = { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query) } } };
    const first = await post({ query, ...hashed });
    expect(first.status).toBe(200);
    const again = await post(hashed);
    expect(again.headers['x-cache']).toBe('HIT');
    expect(again.text).toBe(first.text);
    // A hash that never came with its text is Yoga's to answer.
    const unknown = await post({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ posts { data { uuid } } }') } } });
    expect(unknown.body.errors?.[0]?.message).toMatch(/PersistedQueryNotFound/);
  });

  it('answers a project that enforces trusted documents only for its manifest documents, by text or hash', async () => {
    const other = '{ posts(perPage: 4) { data { uuid } } }';
    const trusted = '{ posts(perPage: 6) { data { uuid } } }';
    expect((await post({ query: other })).status).toBe(200);
    expect((await post({ query: other })).headers['x-cache']).toBe('HIT'); // cached before enforcement
    expect((await api('PUT', '/api/project/trusted-documents', { documents: [trusted], enforced: true })).status).toBe(200);
    const refused = await post({ query: other });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].extensions.code).toBe('TRUSTED_DOCUMENTS_ONLY');
    expect((await post({ query: trusted })).status).toBe(200);
    // The lane takes the gate's trusted-documents step: a manifest document is answered from the cache,
    // by its text or its hash, and a text outside the manifest is still refused though its answer is cached.
    const trustedAgain = await post({ query: trusted });
    expect(trustedAgain.status).toBe(200);
    expect(trustedAgain.headers['x-cache']).toBe('HIT');
    const byHash = await post({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(trusted) } } });
    expect(byHash.headers['x-cache']).toBe('HIT');
    expect(byHash.text).toBe(trustedAgain.text);
    const refusedAgain = await post({ query: other });
    expect(refusedAgain.status).toBe(403);
    expect(refusedAgain.headers['x-cache']).toBeUndefined();
    expect((await api('PUT', '/api/project/trusted-documents', { documents: [trusted], enforced: false })).status).toBe(200);
  });

  it('chooses the media type as graphql-yoga does', () => {
    expect(regularMediaType(undefined)).toBe('application/json');
    expect(regularMediaType('*/*')).toBe('application/json');
    expect(regularMediaType('application/graphql-response+json')).toBe('application/graphql-response+json');
    expect(regularMediaType('application/graphql-response+json, application/json')).toBe('application/graphql-response+json');
    expect(regularMediaType('application/json, application/graphql-response+json')).toBe('application/json');
    expect(regularMediaType('text/event-stream')).toBeNull();
    expect(regularMediaType('application/json; charset=latin1')).toBeNull();
    expect(regularMediaType('multipart/mixed')).toBeNull();
  });
});
