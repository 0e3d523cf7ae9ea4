import { readFileSync } from 'node:fs';
import { CommanderError } from 'commander';
import { loadConfig, ConfigError, type Config } from '../config.ts';
import { createLogger } from '../logger.ts';
import { openDatabase, type Database } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import { AppError } from '../errors.ts';
import { buildProgram, UsageError, type Chosen } from './commands.ts';
import type { CliEnv } from './env.ts';
import type { Services } from '../context.ts';
import { createWebhookRuntime } from '../delivery/runtime.ts';

export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is a terminal (progress bars are drawn only then). */
  errIsTTY?: boolean;
}

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Input the operations reject is the caller's mistake (exit 2), like bad usage. */
const CALLER_ERRORS = new Set(['VALIDATION_FAILED', 'NOT_FOUND', 'BAD_REQUEST']);

/**
 * Runs one CLI command. Returns the exit code: 0 success, 2 bad usage or input the command rejects,
 * 1 anything else (database unreachable, a failed health check). Results go to stdout (text, or one
 * JSON value with --json); help and --version to stdout; errors and logs to stderr.
 */
export async function runCli(argv: string[], processEnv: NodeJS.ProcessEnv, io: CliIO): Promise<number> {
  let chosen: Chosen | undefined;
  const program = buildProgram(VERSION, io, (c) => (chosen = c));
  try {
    program.parse(argv, { from: 'user' });
  } catch (err) {
    // Help and --version "fail" with exit code 0; everything else commander throws is bad usage.
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof UsageError) {
      io.err(`error: ${err.message}\n(add --help for usage)\n`);
      return 2;
    }
    throw err;
  }
  if (!chosen) return 2; // unreachable: commander reports a missing command itself

  let config: Config;
  try {
    config = loadConfig(processEnv);
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const log = createLogger(processEnv.LOG_LEVEL ? config.LOG_LEVEL : 'warn', 'cms-cli');
  let database: Database | undefined;
  let services: Services | undefined;
  const env: CliEnv = {
    async db(migrateFirst = true) {
      // No request bounds here: an operator's export, import or migration may rightly run for minutes
      // and wait for a lock; it holds two connections and answers to its own Ctrl-C.
      database ??= await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, log, poolSize: 2 });
      // A fresh database gets its tables before the first project is created.
      if (migrateFirst && config.MIGRATE_ON_START) await migrate(database);
      return database;
    },
    redisUrl: () => config.REDIS_URL,
    async services() {
      const db = await env.db();
      // No Redis, no queue, no cache: servers notice schema changes from the project row itself.
      if (!services) {
        const webhooks = createWebhookRuntime({ config, database: db, log });
        services = { config, log, database: db, webhooks, outboxReaders: [webhooks], onClose: [], close: async () => {} };
      }
      return services;
    },
    progress: { write: (s) => io.err(s), isTTY: !!io.errIsTTY },
  };
  try {
    const output = await chosen.run(env);
    io.out(chosen.json ? `${JSON.stringify(output.json)}\n` : `${output.human}\n`);
    return chosen.failed?.(output) ? 1 : 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`error: ${err.message}\n(add --help for usage)\n`);
      return 2;
    }
    if (err instanceof AppError && CALLER_ERRORS.has(err.code)) {
      const entries = Object.entries(err.errors ?? {});
      const single = entries.length === 1 && entries[0][1].length === 1 && entries[0][1][0] === err.message;
      const details = single ? '' : entries.map(([k, msgs]) => `  ${k}: ${msgs.join(' ')}`).join('\n');
      io.err(`${err.message}${details ? `\n${details}` : ''}\n`);
      return 2;
    }
    io.err(`cms: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await services?.webhooks.close().catch(() => {});
    await database?.close().catch(() => {});
  }
}
