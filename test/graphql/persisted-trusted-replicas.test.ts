import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const PROJECT = '{ project { name } }';
const OTHER = '{ project { uuid } }';
const UNLISTED = '{ project { locales } }';

/** Polls `check` until it holds or `ms` pass (the change feed's latency, with room for a loaded machine). */
async function eventually(check: () => Promise<boolean>, ms = 2000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

/**
 * Two replicas on one database with the change feed on, each remembering what it reads for an hour
 * (AUTH_CACHE_MS): replica B learns of a manifest changed through A only from the feed. B is built
 * from its own copy of the modules (as a second process would be), so nothing A does in memory
 * reaches it.
 */
describe('trusted documents across two replicas (PostgreSQL, LISTEN/NOTIFY)', () => {
  let a: TestApp;
  let b: { inject: (opts: { method: string; url: string; headers: Record<string, string>; payload: string }) => Promise<{ statusCode: number; body: string }>; close(): Promise<unknown> };
  let closeB: () => Promise<void>;
  let p: TestProject;

  beforeAll(async () => {
    const env = { AUTH_CACHE_MS: '3600000' };
    a = await startTestApp({ env });
    vi.resetModules();
    const { loadConfig } = await import('../../src/config.ts');
    const { createLogger } = await import('../../src/logger.ts');
    const { openPostgres } = await import('../../src/db/client.ts');
    const { createServices } = await import('../../src/services.ts');
    const { buildServer } = await import('../../src/http/server.ts');
    const config = loadConfig(
      { LOG_LEVEL: 'silent', MIGRATE_ON_START: 'false', WORKER_IN_PROCESS: 'false', RATE_LIMIT_PER_MINUTE: '100000', ...env },
      { DATABASE_URL: a.databaseUrl },
    );
    const services = await createServices(config, createLogger('silent'), { database: openPostgres(a.databaseUrl!, 3), authCache: true });
    const server = await buildServer(services);
    await server.ready();
    b = server;
    closeB = async () => {
      await server.close();
      await services.close();
    };
    p = await a.project({ name: 'Trusted replicas' });
    expect((await manifestOnA({ documents: [PROJECT, OTHER] })).status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await closeB?.();
    await a?.close();
  });

  const manifestOnA = (body: unknown) => a.request({ method: 'PUT', url: '/api/project/trusted-documents', headers: p.headers, body });
  async function gqlOnB(body: Record<string, unknown>) {
    const res = await b.inject({ method: 'POST', url: '/graphql', headers: { ...p.headers, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    return { status: res.statusCode, body: JSON.parse(res.body) };
  }
  const byHash = (text: string) => ({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(text) } } });

  it('enforcement switched on through A: B refuses an unlisted document within the feed’s latency', async () => {
    // B reads (and remembers) that the project does not enforce its manifest.
    expect((await gqlOnB({ query: UNLISTED })).status).toBe(200);
    expect((await gqlOnB({ query: UNLISTED })).status).toBe(200);
    expect((await manifestOnA({ enforced: true })).status).toBe(200);
    const refused = await eventually(async () => (await gqlOnB({ query: UNLISTED })).status === 403);
    expect(refused, 'B kept running a document outside the manifest').toBe(true);
    const res = await gqlOnB({ query: UNLISTED });
    expect(res.body.errors[0].extensions.code).toBe('TRUSTED_DOCUMENTS_ONLY');
    expect((await gqlOnB({ query: PROJECT })).body).toEqual({ data: { project: { name: 'Trusted replicas' } } });
  });

  it('a document removed from the manifest through A is refused by B, by text and by hash', async () => {
    // B reads (and remembers) OTHER as a trusted document, both ways it can be named.
    expect((await gqlOnB({ query: OTHER })).status).toBe(200);
    expect((await gqlOnB(byHash(OTHER))).status).toBe(200);
    expect((await manifestOnA({ documents: [PROJECT] })).status).toBe(200);
    const refused = await eventually(async () => (await gqlOnB({ query: OTHER })).status === 403);
    expect(refused, 'B kept running a document removed from the manifest').toBe(true);
    const hashed = await gqlOnB(byHash(OTHER));
    expect(hashed.status).toBe(404);
    expect(hashed.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect((await gqlOnB(byHash(PROJECT))).status).toBe(200);
  });

  it('a change made outside any server (plain SQL, as another process would) reaches B too', async () => {
    expect((await gqlOnB({ query: UNLISTED })).status).toBe(403);
    await a.database.query(`UPDATE trusted_document_manifests SET enforced = false WHERE project_id = $1`, [p.id]);
    expect(await eventually(async () => (await gqlOnB({ query: UNLISTED })).status === 200), 'B kept enforcing a manifest switched off').toBe(true);
    await a.database.query(`UPDATE trusted_document_manifests SET enforced = true WHERE project_id = $1`, [p.id]);
    expect(await eventually(async () => (await gqlOnB({ query: UNLISTED })).status === 403), 'B kept running an unlisted document').toBe(true);
  });
});
