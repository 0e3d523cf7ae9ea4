import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openPostgres } from '../../src/db/client.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createServices, type AppServices } from '../../src/services.ts';
import { buildServer } from '../../src/http/server.ts';
import { typedSchemaCacheOf } from '../../src/graphql/server/mount.ts';
import { announceSchemaRevision } from '../../src/collections/schema-effects.ts';
import { REDIS_URL, createTestDatabase } from '../helpers/pg.ts';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { world, posts } from '../helpers/world.ts';

const until = async (check: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('typed schema cache across two replicas (PostgreSQL + Redis)', () => {
  let a: TestApp;
  let bServices: AppServices;
  let b: Awaited<ReturnType<typeof buildServer>>;
  let p: TestProject;

  beforeAll(async () => {
    a = await startTestApp({ env: { REDIS_URL } });
    const config = loadConfig({ LOG_LEVEL: 'silent', MIGRATE_ON_START: 'false', WORKER_IN_PROCESS: 'false', RATE_LIMIT_PER_MINUTE: '100000', REDIS_URL }, { DATABASE_URL: a.databaseUrl });
    bServices = await createServices(config, createLogger('silent'), { database: openPostgres(a.databaseUrl!, 2) });
    b = await buildServer(bServices);
    await b.ready();
    ({ p } = await world({ app: a, project: { name: 'Replicas' }, collections: [posts()] }));
  });
  afterAll(async () => {
    await b.close();
    await bServices.close();
    await a.close();
  });

  const onB = async (query: string) => {
    const res = await b.inject({ method: 'POST', url: '/graphql', headers: { ...p.headers, 'content-type': 'application/json' }, payload: JSON.stringify({ query }) });
    return JSON.parse(res.body) as { data?: any; errors?: Array<{ message: string }> };
  };

  it('a replica notices a schema change made through another one on its next request', async () => {
    expect((await onB('{ posts { data { title } } }')).errors).toBeUndefined();
    const cacheB = typedSchemaCacheOf(bServices)!;
    const [before] = cacheB.cachedRevisions(p.id);
    const added = await a.request({ method: 'POST', url: '/api/collections/posts/fields', headers: p.headers, body: { type: 'number', label: 'Views', name: 'views' } });
    expect(added.status).toBe(201);
    expect((await onB('{ posts { data { title views } } }')).errors).toBeUndefined();
    expect(Math.max(...cacheB.cachedRevisions(p.id))).toBeGreaterThan(before);
  });

  it('an announcement over Redis drops the stale schema on every replica and builds the new one ahead of requests', async () => {
    const cacheB = typedSchemaCacheOf(bServices)!;
    await onB('{ posts { data { title } } }');
    const current = Math.max(...cacheB.cachedRevisions(p.id));
    const project = await a.database.prisma.project.update({ where: { id: p.id }, data: { schemaRevision: { increment: 1 } } });
    await announceSchemaRevision(a.services, p.id, project.schemaRevision);
    await until(() => cacheB.cachedRevisions(p.id).join() === String(project.schemaRevision));
    expect(cacheB.cachedRevisions(p.id)).not.toContain(current);
  });

  it('announcements of another database on the same Redis are ignored (project ids repeat across databases)', async () => {
    const cacheB = typedSchemaCacheOf(bServices)!;
    await onB('{ posts { data { title } } }');
    const other = await createTestDatabase();
    const foreign = openPostgres(other.url, 1);
    const noticed = vi.spyOn(cacheB, 'noticeRevision');
    try {
      // Another deployment's "project <same id>" moving to a revision this one never had...
      await announceSchemaRevision({ redis: a.services.redis, log: a.services.log, database: foreign }, p.id, 1_000_000);
      // ...then this database's own announcement, which must arrive; the foreign one must not count.
      const project = await a.database.prisma.project.update({ where: { id: p.id }, data: { schemaRevision: { increment: 1 } } });
      await announceSchemaRevision(a.services, p.id, project.schemaRevision);
      await until(() => noticed.mock.calls.some(([, revision]) => revision === project.schemaRevision));
      expect(noticed.mock.calls.map(([, revision]) => revision)).not.toContain(1_000_000);
    } finally {
      noticed.mockRestore();
      await foreign.close();
      await other.drop();
    }
  });

  it('a field change through the API announces itself: the other replica moves on without a request', async () => {
    const cacheB = typedSchemaCacheOf(bServices)!;
    await onB('{ posts { data { title } } }');
    const stale = Math.max(...cacheB.cachedRevisions(p.id));
    const added = await a.request({ method: 'POST', url: '/api/collections/posts/fields', headers: p.headers, body: { type: 'text', label: 'Teaser', name: 'teaser' } });
    expect(added.status).toBe(201);
    // The stale schema is dropped first and the new one built after it: wait for both.
    await until(() => !cacheB.cachedRevisions(p.id).includes(stale) && Math.max(...cacheB.cachedRevisions(p.id)) > stale);
    expect(Math.max(...cacheB.cachedRevisions(p.id))).toBeGreaterThan(stale);
  });

  it('concurrent first requests after a change all get the new schema, and only it stays cached', async () => {
    const cacheB = typedSchemaCacheOf(bServices)!;
    const project = await a.database.prisma.project.update({ where: { id: p.id }, data: { schemaRevision: { increment: 1 } } });
    const results = await Promise.all(Array.from({ length: 8 }, () => onB('{ posts { data { title } } }')));
    expect(results.every((r) => !r.errors)).toBe(true);
    expect(cacheB.cachedRevisions(p.id)).toEqual([project.schemaRevision]);
  });
});
