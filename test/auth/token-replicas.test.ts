import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppServices } from '../../src/services.ts';
import type { buildServer } from '../../src/http/server.ts';
import { startSecondReplica, startTestApp, type TestApp } from '../helpers/app.ts';
import { world, posts, type World } from '../helpers/world.ts';

async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

/**
 * Two replicas on one database, each trusting the authentications it holds for an hour: a token
 * revoked through replica A over the API is refused by replica B as soon as the change notification
 * arrives, also on B's early cached-read lane.
 */
describe('token revocation across replicas (PostgreSQL, LISTEN/NOTIFY)', () => {
  let a: TestApp;
  let w: World;
  let bServices: AppServices;
  let b: Awaited<ReturnType<typeof buildServer>>;
  let closeB: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const env = { AUTH_CACHE_MS: '3600000' };
    a = await startTestApp({ env });
    ({ services: bServices, server: b, close: closeB } = await startSecondReplica(a, { env }));
    w = await world({ app: a, project: { name: 'Replicas' }, collections: [posts()] });
    await w.api('POST', '/api/posts', { state: 'published', data: { title: 'One' } });
  }, 120_000);
  afterAll(async () => {
    await closeB?.();
    await w.close();
    await a.close();
  });

  it.each([['API token', '/api/project/tokens', { name: 'r', abilities: ['read'], collections: ['posts'] }], ['preview token', '/api/preview-tokens', { expires_in: 3600 }]])(
    'a %s revoked on A is refused on B',
    async (_kind, route, body) => {
      const issued = await w.api('POST', route, body);
      expect(issued.status, issued.text).toBe(201);
      const headers = { 'project-id': w.p.uuid, authorization: `Bearer ${issued.body.data.token}` };
      const onB = async () => (await b.inject({ method: 'GET', url: '/api/posts', headers })).statusCode;
      // B remembers the token and answers the read from its cache.
      expect(await eventually(async () => (await b.inject({ method: 'GET', url: '/api/posts', headers })).headers['x-cache'] === 'HIT')).toBe(true);
      expect((await w.api('DELETE', `${route}/${issued.body.data.id}`)).status).toBe(200);
      expect(await eventually(async () => (await onB()) === 401)).toBe(true);
    },
  );
});
