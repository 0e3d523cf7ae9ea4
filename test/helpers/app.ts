import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/client.ts';
import { openPostgres, poolLimits } from '../../src/db/client.ts';
import { migratedInMemoryImage, openEmbeddedInMemory } from '../../src/db/embedded.ts';
import { migrate } from '../../src/db/migrate.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createServices, type AppServices } from '../../src/services.ts';
import { buildServer } from '../../src/http/server.ts';
import { createProject, type CreateProjectInput } from '../../src/projects/operations.ts';
import { issueToken } from '../../src/auth/tokens.ts';
import { createTestDatabase } from './pg.ts';

export interface TestProject {
  uuid: string;
  id: number;
  /** Token holding `*`. */
  token: string;
  /** Headers for the `*` token. */
  headers: Record<string, string>;
  tokenWith(abilities: string[] | string): Promise<Record<string, string>>;
}

export interface TestApp {
  app: FastifyInstance;
  services: AppServices;
  database: Database;
  databaseUrl?: string;
  /** `remoteAddress`: the client's address as the server sees it (127.0.0.1 when not given). */
  request(opts: { method: string; url: string; headers?: Record<string, string>; body?: unknown; payload?: string; remoteAddress?: string }): Promise<{
    status: number;
    body: any;
    headers: Record<string, unknown>;
    text: string;
  }>;
  graphql(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  project(input?: Partial<CreateProjectInput>): Promise<TestProject>;
  close(): Promise<void>;
}

/**
 * Starts the real HTTP app against a fresh PostgreSQL database (or in-memory PGlite with
 * `{ embedded: true }`). Requests go through Fastify's full pipeline via inject().
 */
export async function startTestApp(
  opts: { embedded?: boolean; config?: Partial<Config>; env?: Record<string, string>; /** A database the caller owns (not dropped at close). */ databaseUrl?: string } = {},
): Promise<TestApp> {
  let dropDb: (() => Promise<void>) | undefined;
  let databaseUrl: string | undefined = opts.databaseUrl;
  if (!databaseUrl && !opts.embedded) {
    const created = await createTestDatabase();
    databaseUrl = created.url;
    dropDb = created.drop;
  }
  // Its own data directory (assets, GraphiQL's first-start headers), never the checkout's ./.data
  // that `npm start` fills: a test must not read what a developer's server wrote.
  const given = opts.config?.DATA_DIR ?? opts.env?.DATA_DIR;
  const dataDir = given ?? (await mkdtemp(join(tmpdir(), 'cms-test-app-')));
  // AUTH_CACHE_MS=0: many tests write with plain Prisma/SQL in this process and read over HTTP at once;
  // the in-process authentication cache sees those writes only via NOTIFY. Its own tests switch it on.
  const config = loadConfig(
    { LOG_LEVEL: 'silent', MIGRATE_ON_START: 'false', SEED_DEMO: 'false', WORKER_IN_PROCESS: 'false', RATE_LIMIT_PER_MINUTE: '100000', AUTH_CACHE_MS: '0', ...opts.env },
    { DATABASE_URL: databaseUrl, ...opts.config, DATA_DIR: dataDir },
  );
  // The pool bounds (DATABASE_*_TIMEOUT_MS) as the server applies them.
  const database: Database = databaseUrl
    ? openPostgres(databaseUrl, 5, { limits: poolLimits(config) })
    : await openEmbeddedInMemory({ image: await migratedInMemoryImage(migrate) });
  const log = createLogger(config.LOG_LEVEL);
  const services = await createServices(config, log, { database, authCache: true });
  const app = await buildServer(services);
  await app.ready();

  const request: TestApp['request'] = async ({ method, url, headers = {}, body, payload, remoteAddress }) => {
    const res = await app.inject({
      method: method as 'GET',
      url,
      ...(remoteAddress ? { remoteAddress } : {}),
      headers: body !== undefined ? { 'content-type': 'application/json', ...headers } : headers,
      payload: payload ?? (body !== undefined ? JSON.stringify(body) : undefined),
    });
    let parsed: unknown = undefined;
    try {
      parsed = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.statusCode, body: parsed, headers: res.headers, text: res.body };
  };

  return {
    app,
    services,
    database,
    databaseUrl,
    request,
    async graphql(query, variables, headers = {}) {
      const res = await request({ method: 'POST', url: '/graphql', headers, body: { query, variables } });
      return { status: res.status, body: res.body };
    },
    async project(input = {}) {
      const p = await createProject(database.prisma, { name: 'Test project', ...input });
      const tokenWith = async (abilities: string[] | string) => {
        const t = await issueToken(database.prisma, { projectUuid: p.uuid, abilities, name: `test ${String(abilities)}` });
        return { 'project-id': p.uuid, authorization: `Bearer ${t.token}` };
      };
      const headers = await tokenWith(['*']);
      return { uuid: p.uuid, id: p.id, token: headers.authorization.slice(7), headers, tokenWith };
    },
    async close() {
      await app.close();
      await services.close();
      await dropDb?.();
      if (given === undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A second API server on `a`'s database, in this process, as another replica behind a load balancer
 * would be: its own services (authentication cache, change feed, read caches, live hub), no
 * migrations, no worker. `database` replaces its pool (e.g. one whose statements a test watches).
 */
export async function startSecondReplica(
  a: TestApp,
  opts: { env?: Record<string, string>; database?: Database } = {},
): Promise<{ services: AppServices; server: Awaited<ReturnType<typeof buildServer>>; close: () => Promise<void> }> {
  const config = loadConfig(
    { LOG_LEVEL: 'silent', MIGRATE_ON_START: 'false', WORKER_IN_PROCESS: 'false', RATE_LIMIT_PER_MINUTE: '100000', ...opts.env },
    { DATABASE_URL: a.databaseUrl },
  );
  const services = await createServices(config, createLogger('silent'), { database: opts.database ?? openPostgres(a.databaseUrl!, 3, { limits: poolLimits(config) }), authCache: true });
  const server = await buildServer(services);
  await server.ready();
  return {
    services,
    server,
    close: async () => {
      await server.close();
      await services.close();
    },
  };
}
