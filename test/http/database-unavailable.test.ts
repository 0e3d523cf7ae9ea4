import pg from 'pg';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/client.ts';
import { isTransientDatabaseError } from '../../src/db/errors.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createServices, type AppServices } from '../../src/services.ts';
import { buildServer } from '../../src/http/server.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * A database that cannot serve a request right now is the server's problem, not the client's, and
 * not a bug: 503 with Retry-After and the usual JSON body, on REST and GraphQL alike, never a masked 500.
 */
describe('database unreachable', () => {
  let services: AppServices;
  let app: FastifyInstance;
  beforeAll(async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent', MIGRATE_ON_START: 'false', SEED_DEMO: 'false', WORKER_IN_PROCESS: 'false' }, {});
    // Port 1: nothing listens, every connection is refused.
    services = await createServices(config, createLogger('silent'), { database: openPostgres('postgresql://postgres@127.0.0.1:1/none', 2) });
    app = await buildServer(services);
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await services.close();
  });

  const headers = { 'project-id': randomUUID(), authorization: 'Bearer anything' };

  it('REST answers 503 with Retry-After and a JSON message', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/collections', headers });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json()).toEqual({ message: 'The database is unavailable or busy; retry the request shortly.' });
  });

  it('GraphQL answers SERVICE_UNAVAILABLE with the same status', async () => {
    const res = await app.inject({ method: 'POST', url: '/graphql', headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify({ query: '{ project { uuid } }' }) });
    expect(res.statusCode).toBe(503);
    expect(res.json().errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
  });

  it('readiness says so', async () => {
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json().checks.database).toBe('down');
  });
});

describe('what counts as transient', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
    try {
      await fn();
    } catch (err) {
      return err;
    }
    throw new Error('expected a failure');
  }

  it('a cancelled statement, through Prisma and through plain pg', async () => {
    const viaPrisma = await thrown(() =>
      t.database.prisma.$transaction(async (tx) => {
        await tx.$executeRawUnsafe('SET LOCAL statement_timeout = 20');
        await tx.$executeRawUnsafe('SELECT pg_sleep(1)');
      }),
    );
    expect(isTransientDatabaseError(viaPrisma)).toBe(true);
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    try {
      await client.query('SET statement_timeout = 20');
      expect(isTransientDatabaseError(await thrown(() => client.query('SELECT pg_sleep(1)')))).toBe(true);
    } finally {
      await client.end();
    }
  });

  it('a deadlock', async () => {
    const a = new pg.Client({ connectionString: t.databaseUrl });
    const b = new pg.Client({ connectionString: t.databaseUrl });
    await Promise.all([a.connect(), b.connect()]);
    try {
      await a.query('CREATE TABLE deadlock_probe (id int PRIMARY KEY); INSERT INTO deadlock_probe VALUES (1), (2)');
      await a.query('BEGIN; UPDATE deadlock_probe SET id = id WHERE id = 1');
      await b.query('BEGIN; UPDATE deadlock_probe SET id = id WHERE id = 2');
      const results = await Promise.allSettled([a.query('UPDATE deadlock_probe SET id = id WHERE id = 2'), b.query('UPDATE deadlock_probe SET id = id WHERE id = 1')]);
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(failed).toHaveLength(1);
      expect(isTransientDatabaseError(failed[0].reason)).toBe(true);
    } finally {
      await a.query('ROLLBACK').catch(() => {});
      await b.query('ROLLBACK').catch(() => {});
      await Promise.all([a.end(), b.end()]);
    }
  });

  it('not: a constraint violation or a syntax error is the request’s or the code’s fault', async () => {
    expect(isTransientDatabaseError(await thrown(() => t.database.query('SELECT FROM')))).toBe(false);
    expect(isTransientDatabaseError(await thrown(() => t.database.query(`INSERT INTO projects (id) VALUES (NULL)`)))).toBe(false);
    expect(isTransientDatabaseError(new Error('boom'))).toBe(false);
  });
});
