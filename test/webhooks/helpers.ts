import { createServer as createNetServer } from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterEach } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { REDIS_URL, TEST_JWT_KEYS } from '../helpers/pg.ts';
import { waitFor } from '../helpers/receiver.ts';
import { world, posts, collection, field } from '../helpers/world.ts';
import { systemCtx, type Ctx, type EventSource } from '../../src/context.ts';
import { emitContentEvents, type ContentEventInput } from '../../src/events/outbox.ts';
import { passwordNamesSql } from '../../src/entries/store/snapshot.ts';
import type { ContentEventName } from '../../src/events/names.ts';
import type { WebhookOptions } from '../../src/delivery/options.ts';

export { startReceiver, waitFor, type Received, type Receiver, type Responder } from '../helpers/receiver.ts';

export const uniquePrefix = () => `twh${process.pid}${Math.random().toString(36).slice(2, 8)}`;

/** Test-speed delivery settings: fast polls and retries, a private BullMQ prefix. */
export function fastOptions(extra: Partial<WebhookOptions> = {}): Partial<WebhookOptions> {
  return {
    queuePrefix: uniquePrefix(),
    pollIntervalMs: 100,
    sweepIntervalMs: 300,
    sweepGraceMs: 300,
    retryBaseMs: 30,
    retryMaxMs: 200,
    leaseMs: 3000,
    lockDurationMs: 2000,
    stalledIntervalMs: 1000,
    timeoutMs: 2000,
    ...extra,
  };
}

/** Deletes a test's BullMQ keys from the shared Redis. */
export async function dropQueueKeys(prefix: string, redisUrl = REDIS_URL): Promise<void> {
  const r = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await r.del(...keys);
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
}

export interface WebhookTestEnv {
  t: TestApp;
  p: TestProject;
  /** Creates a webhook through the API (201 expected). */
  hook(body: Record<string, unknown>): Promise<{ uuid: string; [k: string]: any }>;
  /** Writes content events to the outbox the way the content operations do. */
  emit(events: Array<Partial<ContentEventInput> & { event: ContentEventName }>, opts?: { source?: EventSource; collection?: { id: number; uuid: string; slug: string } }): Promise<void>;
  collection: { id: number; uuid: string; slug: string };
  other: { id: number; uuid: string; slug: string };
  logs(uuid: string, query?: string): Promise<any>;
  close(): Promise<void>;
}

/**
 * An app with HTTP and private addresses allowed (the receiver is on 127.0.0.1), delivery running
 * in this process (BullMQ on the shared Redis with a private prefix when `redis`), two collections.
 */
export async function webhookEnv(opts: { redis?: boolean; embedded?: boolean; options?: Partial<WebhookOptions>; start?: boolean; env?: Record<string, string> } = {}): Promise<WebhookTestEnv> {
  const t = await startTestApp({
    embedded: opts.embedded,
    env: {
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      ...(opts.redis ? { REDIS_URL } : {}),
      ...opts.env,
    },
  });
  Object.assign(t.services.webhooks.options, fastOptions(opts.options));
  const { p, c } = await world({ app: t, collections: [posts(), collection('pages', [field.text('title')])] });
  const project = await t.database.prisma.project.findUniqueOrThrow({ where: { id: p.id } });
  if (opts.start !== false) await t.services.webhooks.start();
  const ctxFor = (source: EventSource): Ctx => ({ ...systemCtx(t.services, project), source });
  const target = { id: c.posts.id, uuid: c.posts.uuid, slug: c.posts.slug };
  return {
    t,
    p,
    collection: target,
    other: { id: c.pages.id, uuid: c.pages.uuid, slug: c.pages.slug },
    async hook(body) {
      const res = await t.request({ method: 'POST', url: '/api/webhooks', headers: p.headers, body });
      if (res.status !== 201) throw new Error(`webhook create failed: ${res.status} ${res.text}`);
      return res.body;
    },
    async emit(events, o = {}) {
      const ctx = ctxFor(o.source ?? 'api');
      await t.database.prisma.$transaction((tx) =>
        emitContentEvents(
          tx,
          ctx,
          events.map((e, i) => ({
            collection: o.collection ?? target,
            entryUuid: e.entryUuid ?? crypto.randomUUID(),
            locale: 'en',
            ...(e.event === 'content.deleted' ? {} : { entry: e.entry ?? { uuid: e.entryUuid, fields: { title: `t${i}` } } }),
            ...e,
          })),
          passwordNamesSql,
        ),
      );
    },
    async logs(uuid, query = '') {
      const res = await t.request({ method: 'GET', url: `/api/webhooks/${uuid}/logs${query}`, headers: p.headers });
      if (res.status !== 200) throw new Error(`logs failed: ${res.status} ${res.text}`);
      return res.body;
    },
    async close() {
      const prefix = t.services.webhooks.options.queuePrefix;
      await t.close();
      if (opts.redis) await dropQueueKeys(prefix);
    },
  };
}

export async function freePort(): Promise<number> {
  const srv = createNetServer();
  await new Promise<void>((ok) => srv.listen(0, '127.0.0.1', ok));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((ok) => srv.close(() => ok()));
  return port;
}

/** A private redis-server child (never the shared one on 6379), for tests that stop Redis. */
export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], { stdio: 'ignore' });
  await waitFor(async () => {
    const r = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
    r.on('error', () => {});
    try {
      await r.connect();
      return (await r.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      r.disconnect();
    }
  }, 10_000);
  return child;
}

export function killed(child: ChildProcess): Promise<void> {
  return new Promise((ok) => {
    if (child.exitCode !== null || child.signalCode !== null) return ok();
    child.once('exit', () => ok());
  });
}

/** Runs a TypeScript entry point as ONE node process (no npx wrapper), so a SIGKILL hits the process itself. */
export function spawnTs(script: string, env: Record<string, string>): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: new URL('../..', import.meta.url).pathname,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  return Object.assign(child, { output: () => out });
}

/** Environment for a child API or worker process sharing the test's database and queue. */
export function childEnv(env: WebhookTestEnv, extra: Record<string, string> = {}): Record<string, string> {
  const o = env.t.services.webhooks.options;
  return {
    DATABASE_URL: env.t.databaseUrl!,
    AUTH_JWT_KEYS: TEST_JWT_KEYS,
    ...(env.t.services.config.REDIS_URL ? { REDIS_URL: env.t.services.config.REDIS_URL } : {}),
    MIGRATE_ON_START: 'false',
    SEED_DEMO: 'false',
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_QUEUE_PREFIX: o.queuePrefix,
    WEBHOOK_POLL_INTERVAL_MS: String(o.pollIntervalMs),
    WEBHOOK_SWEEP_INTERVAL_MS: String(o.sweepIntervalMs),
    WEBHOOK_RETRY_BASE_MS: String(o.retryBaseMs),
    WEBHOOK_LEASE_MS: String(o.leaseMs),
    WEBHOOK_LOCK_DURATION_MS: String(o.lockDurationMs),
    ...extra,
  };
}

/**
 * What a test opens through the returned function (an environment, a receiver) is closed after it,
 * in the order opened: `const open = closedAfterEach();` then `const env = open(await webhookEnv())`.
 */
export function closedAfterEach(): <T extends { close(): Promise<unknown> }>(thing: T) => T {
  const opened: Array<{ close(): Promise<unknown> }> = [];
  afterEach(async () => {
    for (const thing of opened.splice(0)) await thing.close();
  });
  return (thing) => {
    opened.push(thing);
    return thing;
  };
}
