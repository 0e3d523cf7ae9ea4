import { ConfigError, loadConfig, type Config } from '../config.ts';
import { createLogger } from '../logger.ts';
import { createServices } from '../services.ts';
import { closeOnSignal } from '../process-lifecycle.ts';

/**
 * `npm run worker`: a process that only delivers webhooks (outbox dispatcher, BullMQ worker or
 * in-process runner, sweeper, retention cleanup), for deployments that run API replicas with
 * WORKER_IN_PROCESS=false. Any number may run side by side.
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
  const log = createLogger(config.LOG_LEVEL, 'cms-worker');
  const services = await createServices(config, log);
  closeOnSignal(log, 'webhook worker', () => services.close());
  await services.webhooks.start();
  log.info({ mode: services.webhooks.mode, database: services.database.kind }, 'webhook worker running');
}

main().catch((err) => {
  process.stderr.write(`Worker failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
