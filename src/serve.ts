import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { createServices } from './services.ts';
import { openDatabase, poolLimits } from './db/client.ts';
import { buildServer } from './http/server.ts';
import { metricsHandler } from './http/metrics.ts';
import type { EarlyListener } from './http/early-listener.ts';
import { demoBanner, demoStartLine, seedDemo } from './seed/demo.ts';
import { closeOnSignal, waitForDatabase } from './process-lifecycle.ts';
import { saveLocalGraphiqlHeaders } from './graphql/graphiql/page.ts';
import { allowsLocalhost } from './delivery/options.ts';

/**
 * The API server once src/main.ts has checked the configuration and bound the ports: everything
 * heavy (Fastify, GraphQL, Prisma, the drivers) is loaded by importing this module.
 */

/** Where a developer on this machine reaches the server (PUBLIC_URL wins when set). */
function baseUrl(config: Config, address: string): string {
  if (config.PUBLIC_URL) return config.PUBLIC_URL.replace(/\/$/, '');
  const port = new URL(address).port || String(config.PORT);
  return `http://localhost:${port}`;
}

/**
 * How long responses carry `Connection: close` (and /readyz says 503) before the listener closes:
 * long enough for busy keep-alive clients to be told, short against the grace period.
 */
const settleMs = (graceMs: number) => Math.min(1000, Math.floor(graceMs / 4));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function serve(config: Config, listeners: { api: EarlyListener; metrics?: EarlyListener }): Promise<void> {
  const log = createLogger(config.LOG_LEVEL, undefined, { buffered: true, format: config.LOG_FORMAT });
  const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, log, limits: poolLimits(config) });
  if (database.kind === 'postgres') await waitForDatabase(database, log, config.DATABASE_CONNECT_TIMEOUT_MS);
  const services = await createServices(config, log, { database, authCache: true });
  let app: FastifyInstance | undefined;
  const metricsServer = listeners.metrics?.server;

  closeOnSignal(log, 'server', {
    graceMs: config.SHUTDOWN_GRACE_MS,
    async drain() {
      if (app) {
        app.beginDrain();
        await sleep(settleMs(config.SHUTDOWN_GRACE_MS));
        // New connections are refused from here; requests already on their way are still answered.
        const stopped = app.stopAccepting();
        await sleep(100);
        void stopped;
      }
      // Stop accepting and let in-flight requests finish, while the in-process webhook worker
      // finishes the deliveries it is sending (it takes no new ones).
      // The app took over a bound server rather than listening itself, so Fastify leaves closing
      // it to us: it ends once the requests in flight are answered.
      await Promise.all([app?.close().then(() => new Promise<void>((r) => listeners.api.server.close(() => r()))), services.webhooks.close()]);
      await new Promise<void>((r) => (metricsServer ? metricsServer.close(() => r()) : r()));
      await services.close();
    },
    force() {
      listeners.api.server.closeAllConnections();
      metricsServer?.closeAllConnections();
    },
  });

  const seed = config.SEED_DEMO ? await seedDemo(services) : null;
  // Embedded dev install: GraphiQL opened on this machine starts with the demo headers (docs/graphql.md).
  if (seed && !config.DATABASE_URL) await saveLocalGraphiqlHeaders(config.DATA_DIR, seed.project.uuid, seed.token);
  app = await buildServer(services, listeners.api);
  const address = addressOf(listeners.api.server.address() as AddressInfo);
  if (listeners.metrics) {
    listeners.metrics.handle(metricsHandler(services));
    log.info({ port: (listeners.metrics.server.address() as AddressInfo).port }, 'metrics listening');
  }
  // Webhook delivery and scheduled actions in this process unless a separate `npm run worker` does them.
  if (config.WORKER_IN_PROCESS) {
    await services.webhooks.start();
    await services.schedules?.start();
  }
  const url = baseUrl(config, address);
  log.info({ address, graphiql: `${url}/graphql`, database: services.database.kind }, 'listening');
  if (allowsLocalhost(config) && !config.WEBHOOK_ALLOW_PRIVATE_NETWORKS) {
    // Said once at start: a setting nobody made changes which webhook URLs are accepted.
    log.info('webhooks may call receivers on this machine (http://localhost, 127.0.0.1, ::1): embedded database outside production; WEBHOOK_ALLOW_LOCALHOST=false turns this off');
  }
  announce(log, url, seed);
}

/**
 * The first-start banner is for a person at a terminal. Anywhere else (a container log, a file, CI)
 * it is one structured line without the token: logs are read by more people than should hold a `*`
 * token, and a new one is one command away.
 */
function announce(log: Logger, url: string, seed: Awaited<ReturnType<typeof seedDemo>>): void {
  if (process.stderr.isTTY) {
    process.stderr.write(seed ? `\n${demoBanner(seed, url)}\n\n` : `GraphiQL: ${url}/graphql\n`);
  } else if (seed) {
    log.info(demoStartLine(seed, url), 'demo project created');
  }
}

/** The URL this machine reaches the listener at (a wildcard bind is reached on loopback). */
function addressOf(a: AddressInfo): string {
  const ip = a.address === '0.0.0.0' ? '127.0.0.1' : a.address === '::' ? '::1' : a.address;
  return `http://${ip.includes(':') ? `[${ip}]` : ip}:${a.port}`;
}
