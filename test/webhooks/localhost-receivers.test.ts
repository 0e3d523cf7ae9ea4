import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { allowsLocalhost } from '../../src/delivery/options.ts';
import { startAndStop } from '../helpers/start-server.ts';
import { closedAfterEach, startReceiver, webhookEnv, waitFor } from './helpers.ts';

/**
 * Trying webhooks locally needs nothing set: with the embedded database outside production a
 * receiver on this machine (plain http to localhost or a loopback address) is accepted and called.
 * Nothing else is: other private addresses, plain http elsewhere, and every such receiver on a server
 * that uses PostgreSQL or runs in production.
 */
const strict = { WEBHOOK_ALLOW_HTTP: 'false', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' };

describe('receivers on this machine', () => {
  const open = closedAfterEach();

  it('embedded outside production: a local receiver is accepted and called; other private or plain-http URLs are not', { timeout: 180_000 }, async () => {
    const env = open(await webhookEnv({ embedded: true, env: strict }));
    const rx = open(await startReceiver());
    const port = new URL(rx.url).port;
    const create = (url: string) => env.t.request({ method: 'POST', url: '/api/webhooks', headers: env.p.headers, body: { name: 'local', url, secret: 'local-secret', events: ['content.created'], sources: ['api'] } });
    const hook = await create(`http://127.0.0.1:${port}/hook`);
    expect(hook.status).toBe(201);
    expect((await create(`http://localhost:${port}/other`)).status).toBe(201);
    expect((await create(`http://[::1]:${port}/v6`)).status).toBe(201);
    for (const [url, key] of [['https://10.0.0.1/hook', /private, loopback/], ['http://10.0.0.1/hook', /must use HTTPS/], ['http://example.com/hook', /must use HTTPS/]] as const) {
      const res = await create(url);
      expect(res.status, url).toBe(422);
      expect(res.body.errors.url[0], url).toMatch(key);
    }
    const entry = await env.t.request({ method: 'POST', url: '/api/posts', headers: env.p.headers, body: { data: { title: 'local' } } });
    expect(entry.status).toBe(201);
    await waitFor(() => rx.received.some((r) => r.path === '/hook' && r.json.entry_uuid === entry.body.uuid));
  });

  it('a PostgreSQL server refuses them unless WEBHOOK_ALLOW_PRIVATE_NETWORKS and WEBHOOK_ALLOW_HTTP say so', async () => {
    const env = open(await webhookEnv({ start: false, env: strict }));
    const res = await env.t.request({ method: 'POST', url: '/api/webhooks', headers: env.p.headers, body: { name: 'local', url: 'http://127.0.0.1:9/hook', secret: 'local-secret', events: ['content.created'], sources: ['api'] } });
    expect(res.status).toBe(422);
    expect(res.body.errors.url[0]).toMatch(/WEBHOOK_ALLOW_HTTP=true/);
    const https = await env.t.request({ method: 'POST', url: '/api/webhooks', headers: env.p.headers, body: { name: 'local', url: 'https://127.0.0.1:9/hook', secret: 'local-secret', events: ['content.created'], sources: ['api'] } });
    expect(https.status).toBe(422);
    expect(https.body.errors.url[0]).toMatch(/WEBHOOK_ALLOW_PRIVATE_NETWORKS=true/);
  });

  it('an embedded start says so in its log, since no setting asked for it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cms-local-hooks-'));
    try {
      const log = await startAndStop({ DATABASE_URL: '', DATA_DIR: dir, SEED_DEMO: 'false' });
      expect(log).toMatch(/webhooks may call receivers on this machine .*WEBHOOK_ALLOW_LOCALHOST=false turns this off/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('the default follows the database and NODE_ENV; production refuses WEBHOOK_ALLOW_LOCALHOST=true', () => {
    expect(allowsLocalhost(loadConfig({}))).toBe(true);
    expect(allowsLocalhost(loadConfig({ NODE_ENV: 'production' }))).toBe(false);
    expect(allowsLocalhost(loadConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/db' }))).toBe(false);
    expect(allowsLocalhost(loadConfig({ WEBHOOK_ALLOW_LOCALHOST: 'false' }))).toBe(false);
    expect(allowsLocalhost(loadConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/db', WEBHOOK_ALLOW_LOCALHOST: 'true' }))).toBe(true);
    expect(() => loadConfig({ NODE_ENV: 'production', WEBHOOK_ALLOW_LOCALHOST: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production', WEBHOOK_ALLOW_LOCALHOST: 'true' })).toThrow(/WEBHOOK_ALLOW_LOCALHOST cannot be true with NODE_ENV=production/);
  });
});
