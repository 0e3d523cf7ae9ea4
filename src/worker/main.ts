import { ConfigError, loadConfig, type Config } from '../config.ts';
import { createLogger } from '../logger.ts';
import { createServices } from '../services.ts';
import { openDatabase, poolLimits } from '../db/client.ts';
import { closeOnSignal, StartupError, waitForDatabase } from '../process-lifecycle.ts';

/**
 * `npm run worker`: a process that only delivers webhooks (outbox dispatcher, BullMQ worker or
 * in-process runner, sweeper, retention cleanup) and runs scheduled publishes (src/schedules/), for deployments that run API replicas with
 * WORKER_IN_PROCESS=false. Any number may run side by side. On SIGTERM it takes no new deliveries,
 * finishes the ones it is sending and exits 0 (1 if SHUTDOWN_GRACE_MS runs out first).
 */
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
  const log = createLogger(config.LOG_LEVEL, 'cms-worker', { format: config.LOG_FORMAT });
  const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, log, limits: poolLimits(config) });
  if (database.kind === 'postgres') await waitForDatabase(database, log, config.DATABASE_CONNECT_TIMEOUT_MS);
  const services = await createServices(config, log, { database });
  closeOnSignal(log, 'webhook worker', {
    graceMs: config.SHUTDOWN_GRACE_MS,
    drain: () => services.close(),
  });
  await services.webhooks.start();
  await services.schedules?.start();
  log.info({ mode: services.webhooks.mode, database: services.database.kind }, 'webhook worker running');
}

main().catch((err) => {
  const detail = err instanceof StartupError ? err.message : err instanceof Error ? err.stack : String(err);
  process.stderr.write(`Worker failed to start: ${detail}\n`);
  process.exit(1);
});
