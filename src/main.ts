/**
 * The API server's entry point. Configuration is checked and the ports are bound before any heavy
 * module loads, so a bad setting or a port in use is reported in a second, in one line, and a load
 * balancer sees a starting replica answer /readyz 503 instead of refusing connections. Then the
 * application (src/serve.ts) loads and takes the bound ports over.
 */
import nodeModule from 'node:module';
import { checkServerConfig, ConfigError, loadConfig, type Config } from './config.ts';
import { bindEarly, ListenError, type EarlyListener } from './http/early-listener.ts';
import { createApiServer } from './http/connections.ts';
import { StartupError } from './process-lifecycle.ts';

function configOrExit(): Config {
  try {
    const config = loadConfig();
    checkServerConfig(config);
    return config;
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

async function main(): Promise<void> {
  const config = configOrExit();
  const api = await bindEarly(config.PORT, config.HOST, 'PORT', (listener) => createApiServer(config, listener));
  let metrics: EarlyListener | undefined;
  try {
    if (config.METRICS_PORT !== undefined) metrics = await bindEarly(config.METRICS_PORT, config.HOST, 'METRICS_PORT');
  } catch (err) {
    api.server.close();
    throw err;
  }
  // Node 22.1+ keeps the compiled code of every module it loads in a disk cache (os.tmpdir(), or
  // NODE_COMPILE_CACHE), so a restart skips most of what a cold start spends compiling modules.
  (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  const { serve } = await import('./serve.ts');
  await serve(config, { api, metrics });
}

main().catch((err) => {
  // A start-up failure we could explain (port in use, database unreachable) needs no stack trace.
  const explained = err instanceof StartupError || err instanceof ListenError;
  process.stderr.write(`Failed to start: ${explained ? err.message : err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
