import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { REDIS_URL } from '../helpers/pg.ts';
import { typedWorld, type TypedWorld } from './typed-world.ts';
import { injectFetch } from './inject-fetch.ts';

// Redis outlives a test run: documents carry this run's mark so none is already registered.
const RUN = crypto.randomUUID().replaceAll('-', '');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface Sent {
  method: string;
  hasQuery: boolean;
}

/** Apollo Client with PersistedQueryLink, over POST and GET, against the real pipeline. */
function apollo(t: TestApp, headers: Record<string, string>, useGET: boolean, sent: Sent[]) {
  const fetchThrough = injectFetch(t, headers);
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const body = request.method === 'POST' ? ((await request.clone().json()) as { query?: string }) : undefined;
    sent.push({ method: request.method, hasQuery: request.method === 'GET' ? url.searchParams.has('query') : typeof body?.query === 'string' });
    return fetchThrough(request);
  };
  return new ApolloClient({
    cache: new InMemoryCache(),
    link: ApolloLink.from([
      new PersistedQueryLink({ sha256, useGETForHashedQueries: useGET }),
      new HttpLink({ uri: 'http://localhost/graphql', fetch: recording }),
    ]),
  });
}

for (const store of ['memory', 'redis'] as const) {
  describe(`automatic persisted queries (${store} store)`, () => {
    let t: TestApp;
    let w: TypedWorld;
    beforeAll(async () => {
      t = await startTestApp({ embedded: true, env: store === 'redis' ? { REDIS_URL } : {} });
      w = await typedWorld(t, `APQ ${store}`);
      await w.rest('POST', '/api/posts', { data: { title: `Persisted ${store}` }, state: 'published' });
    });
    afterAll(() => t.close());

    for (const useGET of [false, true]) {
      it(`runs Apollo's PersistedQueryLink over ${useGET ? 'GET' : 'POST'}: hash first, text once on PersistedQueryNotFound, hash only after`, async () => {
        const sent: Sent[] = [];
        const query = gql`
          query Titles${useGET ? 'Get' : 'Post'}_${store}_${RUN} {
            posts(where: { title: { eq: "Persisted ${store}" }}) {
              data {
                uuid
                title
              }
            }
          }
        `;
        const first = await apollo(t, w.p.headers, useGET, sent).query({ query, fetchPolicy: 'network-only' });
        expect(first.error).toBeUndefined();
        expect(first.data).toMatchObject({ posts: { data: [{ title: `Persisted ${store}` }] } });
        expect(sent).toEqual([
          { method: useGET ? 'GET' : 'POST', hasQuery: false },
          { method: 'POST', hasQuery: true },
        ]);

        // A new client (another browser, another replica's clients): the hash alone is enough now.
        const again: Sent[] = [];
        const second = await apollo(t, w.p.headers, useGET, again).query({ query, fetchPolicy: 'network-only' });
        expect(second.data).toEqual(first.data);
        expect(again).toEqual([{ method: useGET ? 'GET' : 'POST', hasQuery: false }]);
      });
    }

    it('answers an unknown hash PERSISTED_QUERY_NOT_FOUND and a hash that does not match its text PERSISTED_QUERY_MISMATCH', async () => {
      const unknown = await t.request({
        method: 'POST',
        url: '/graphql',
        headers: w.p.headers,
        body: { extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ nothing }') } } },
      });
      expect(unknown.body.errors[0]).toMatchObject({ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } });
      const mismatch = await t.request({
        method: 'POST',
        url: '/graphql',
        headers: w.p.headers,
        body: { query: '{ project { uuid } }', extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ other }') } } },
      });
      expect(mismatch.status).toBe(400);
      expect(mismatch.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_MISMATCH');
    });

    it(store === 'redis' ? 'keeps registered hashes in Redis with a TTL (every replica knows them)' : 'keeps registered hashes in process without Redis', async () => {
      const text = `{ project { uuid name } } # ${RUN}`;
      const registered = await t.request({ method: 'POST', url: '/graphql', headers: w.p.headers, body: { query: text, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(text) } } } });
      expect(registered.status).toBe(200);
      if (store === 'redis') {
        const redis = t.services.redis!;
        expect(await redis.get(`apq:${sha256(text)}`)).toBe(text);
        expect(await redis.ttl(`apq:${sha256(text)}`)).toBeGreaterThan(3600);
      } else {
        expect(t.services.redis).toBeUndefined();
      }
      const query = `query=&extensions=${encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: sha256(text) } }))}`;
      const byHash = await t.request({ method: 'GET', url: `/graphql?${query}`, headers: w.p.headers });
      expect(byHash.body).toEqual({ data: { project: { uuid: w.p.uuid, name: `APQ ${store}` } } });
    });
  });
}
