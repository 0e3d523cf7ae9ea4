import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { waitFor } from '../../helpers/receiver.ts';
import { loadConfig } from '../../../src/config.ts';
import { createLogger } from '../../../src/logger.ts';
import { createServices, type AppServices } from '../../../src/services.ts';
import { buildServer } from '../../../src/http/server.ts';
import { openEmbedded } from '../../../src/db/embedded.ts';
import { migrate } from '../../../src/db/migrate.ts';
import { createProject } from '../../../src/projects/operations.ts';
import { issueToken } from '../../../src/auth/tokens.ts';

/** A Varnish stand-in: records the tags of every PURGE it is sent. */
async function purgeRecorder(): Promise<{ url: string; tags: string[][]; close: () => Promise<void> }> {
  const tags: string[][] = [];
  const server: Server = createServer((req, res) => {
    if (req.method === 'PURGE') tags.push(String(req.headers['xkey-softpurge'] ?? '').split(' '));
    res.writeHead(200).end();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, tags, close: () => new Promise((ok) => server.close(() => ok())) };
}

const purgeEnv = (url: string) => ({ EDGE_PURGE: 'varnish', VARNISH_PURGE_URLS: url, EDGE_PURGE_DELAY_MS: '0' });

interface Served {
  request(method: string, url: string, body?: unknown): Promise<{ status: number }>;
  projectUuid: string;
}

/**
 * Project-wide purges on embedded PGlite, as on PostgreSQL: a change of the project's row, its
 * collections or fields notifies `cms_changes`, and the purger of the process that owns the database
 * hears it (src/db/embedded-notifications.ts) and purges the project's tag.
 */
function projectPurges(label: string, start: (purgeUrl: string) => Promise<{ served: Served; close: () => Promise<void> }>) {
  describe(`project-wide CDN purges on embedded PGlite (${label})`, () => {
    let recorder: Awaited<ReturnType<typeof purgeRecorder>>;
    let served: Served;
    let close: () => Promise<void>;
    beforeAll(async () => {
      recorder = await purgeRecorder();
      ({ served, close } = await start(recorder.url));
    }, 120_000);
    afterAll(async () => {
      await close?.();
      await recorder?.close();
    });

    const projectPurgesSent = () => recorder.tags.filter((t) => t.includes(`p:${served.projectUuid}`)).length;

    it('a collection made, then a field added, each purge the project', async () => {
      const made = await served.request('POST', '/api/collections', { name: 'Posts', slug: 'posts', fields: [{ type: 'text', label: 'Title', name: 'title' }] });
      expect(made.status).toBe(201);
      await waitFor(() => projectPurgesSent() >= 1, 10_000, () => JSON.stringify(recorder.tags));
      const before = projectPurgesSent();
      const added = await served.request('POST', '/api/collections/posts/fields', { type: 'text', label: 'Body', name: 'body' });
      expect(added.status).toBe(201);
      await waitFor(() => projectPurgesSent() > before, 10_000, () => JSON.stringify(recorder.tags));
    });
  });
}

projectPurges('in memory', async (purgeUrl) => {
  const t: TestApp = await startTestApp({ embedded: true, env: purgeEnv(purgeUrl) });
  const p = await t.project();
  return {
    served: { request: (method, url, body) => t.request({ method, url, headers: p.headers, body }), projectUuid: p.uuid },
    close: () => t.close(),
  };
});

projectPurges('a data directory, served through the owner’s socket', async (purgeUrl) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'cms-embedded-purges-'));
  const log = createLogger('silent');
  const database = await openEmbedded(dataDir, log);
  let services: AppServices | undefined;
  let app: Awaited<ReturnType<typeof buildServer>> | undefined;
  try {
    await migrate(database);
    const config = loadConfig(
      { LOG_LEVEL: 'silent', MIGRATE_ON_START: 'false', SEED_DEMO: 'false', WORKER_IN_PROCESS: 'false', RATE_LIMIT_PER_MINUTE: '100000', ...purgeEnv(purgeUrl) },
      { DATA_DIR: dataDir },
    );
    services = await createServices(config, log, { database, authCache: true });
    app = await buildServer(services);
    await app.ready();
  } catch (err) {
    await app?.close();
    await (services ?? database).close();
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const project = await createProject(database.prisma, { name: 'Embedded' });
  const token = await issueToken(database.prisma, { projectUuid: project.uuid, abilities: ['*'], name: 'all' });
  const headers = { 'project-id': project.uuid, authorization: `Bearer ${token.token}` };
  const served: Served = {
    async request(method, url, body) {
      const res = await app!.inject({ method: method as 'GET', url, headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
      return { status: res.statusCode };
    },
    projectUuid: project.uuid,
  };
  return {
    served,
    async close() {
      await app!.close();
      await services!.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});
