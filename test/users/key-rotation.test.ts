import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { openPostgres } from '../../src/db/client.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createServices, type AppServices } from '../../src/services.ts';
import { buildServer } from '../../src/http/server.ts';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';

const OLD = 'k1:first-secret-that-is-at-least-32-chars-long';
const NEW = 'k2:second-secret-that-is-at-least-32-chars';

/**
 * Replicas on one database with AUTH_JWT_KEYS as an operator rotates it (README, "Signing keys"):
 * the new key is added second everywhere, then put first, then the old one is dropped once the
 * access-token lifetime has passed. At every step a token from any replica is accepted by the others.
 */
describe('AUTH_JWT_KEYS across replicas and a rotation', () => {
  let a: TestApp;
  let p: TestProject;
  const replicas: Record<string, { services: AppServices; app: FastifyInstance }> = {};

  async function replica(keys: string) {
    const config = loadConfig({ LOG_LEVEL: 'silent', MIGRATE_ON_START: 'false', WORKER_IN_PROCESS: 'false', AUTH_CACHE_MS: '0', AUTH_JWT_KEYS: keys }, { DATABASE_URL: a.databaseUrl });
    const services = await createServices(config, createLogger('silent'), { database: openPostgres(a.databaseUrl!, 2), authCache: true });
    const app = await buildServer(services);
    await app.ready();
    return { services, app };
  }

  async function call(on: string, method: 'GET' | 'POST', path: string, opts: { token?: string; body?: unknown } = {}) {
    const res = await replicas[on]!.app.inject({
      method,
      url: `/api/auth/${path}`,
      headers: { 'project-id': p.uuid, ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...(opts.body ? { 'content-type': 'application/json' } : {}) },
      payload: opts.body ? JSON.stringify(opts.body) : undefined,
    });
    return { status: res.statusCode, body: res.json() as Record<string, any> };
  }

  const kid = (token: string) => (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid: string }).kid;
  const login = async (on: string) => (await call(on, 'POST', 'login', { body: { email: 'ada@example.com', password: 'correct horse battery' } })).body.access_token as string;

  beforeAll(async () => {
    a = await startTestApp({ env: { AUTH_JWT_KEYS: OLD } });
    p = await a.project();
    replicas.before = { services: a.services, app: a.app };
    replicas.added = await replica(`${OLD},${NEW}`);
    replicas.promoted = await replica(`${NEW},${OLD}`);
    replicas.after = await replica(NEW);
    replicas.sibling = await replica(OLD);
    expect((await call('before', 'POST', 'signup', { body: { email: 'ada@example.com', password: 'correct horse battery' } })).status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    for (const [name, r] of Object.entries(replicas)) {
      if (name === 'before') continue;
      await r.app.close();
      await r.services.close();
    }
    await a?.close();
  });

  it('a token signed by one replica is accepted by another with the same keys (no sign-out when scaled or restarted)', async () => {
    const token = await login('before');
    expect((await call('sibling', 'GET', 'me', { token })).status).toBe(200);
    expect((await call('before', 'GET', 'me', { token: await login('sibling') })).status).toBe(200);
  });

  it('the first key signs; every listed key verifies, so an old token still works where the old key is second', async () => {
    const old = await login('before');
    expect(kid(old)).toBe('k1');
    expect(kid(await login('added'))).toBe('k1');
    const fresh = await login('promoted');
    expect(kid(fresh)).toBe('k2');
    for (const on of ['added', 'promoted']) {
      expect((await call(on, 'GET', 'me', { token: old })).status).toBe(200);
      expect((await call(on, 'GET', 'me', { token: fresh })).status).toBe(200);
    }
  });

  it('once the old key is dropped its tokens are refused and the new ones still verify', async () => {
    const old = await login('before');
    const fresh = await login('promoted');
    expect((await call('after', 'GET', 'me', { token: old })).status).toBe(401);
    expect((await call('after', 'GET', 'me', { token: fresh })).status).toBe(200);
    // A replica not yet given the new key (the first step skipped) refuses the new tokens: the order matters.
    expect((await call('before', 'GET', 'me', { token: fresh })).status).toBe(401);
  });
});
