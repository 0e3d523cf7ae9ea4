import type { FastifyInstance } from 'fastify';
import { loadConfig, ConfigError, type Config } from './config.ts';
import { createLogger } from './logger.ts';
import { createServices } from './services.ts';
import { buildServer } from './http/server.ts';
import { demoBanner, seedDemo } from './seed/demo.ts';
import { closeOnSignal } from './process-lifecycle.ts';
import { saveLocalGraphiqlHeaders } from './graphql/graphiql.ts';

/** Where a developer on this machine reaches the server (PUBLIC_URL wins when set). */
function baseUrl(config: Config, address: string): string {
  if (config.PUBLIC_URL) return config.PUBLIC_URL.replace(/\/$/, '');
  const port = new URL(address).port || String(config.PORT);
  return `http://localhost:${port}`;
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config.LOG_LEVEL);
  const services = await createServices(config, log, { authCache: true });
  let app: FastifyInstance | undefined;

  closeOnSignal(log, 'server', async () => {
    await app?.close();
    await services.close();
  });

  const seed = config.SEED_DEMO ? await seedDemo(services) : null;
  // Embedded dev install: GraphiQL opened on this machine starts with the demo headers (docs/graphql.md).
  if (seed && !config.DATABASE_URL) await saveLocalGraphiqlHeaders(config.DATA_DIR, seed.project.uuid, seed.token);
  app = await buildServer(services);
  const address = await app.listen({ port: config.PORT, host: config.HOST });
  // Webhook delivery in this process unless a separate `npm run worker` does it.
  if (config.WORKER_IN_PROCESS) await services.webhooks.start();
  const url = baseUrl(config, address);
  log.info({ address, graphiql: `${url}/graphql`, database: services.database.kind }, 'listening');
  if (seed) process.stderr.write(`\n${demoBanner(seed, url)}\n\n`);
  else process.stderr.write(`GraphiQL: ${url}/graphql\n`);
}

main().catch((err) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
