import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadConfig, ConfigError, type Config } from '../config.ts';
import { createLogger, type Logger } from '../logger.ts';
import { openDatabase, type Database } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import { createProject, PLANS } from '../projects/operations.ts';
import { issueToken } from '../auth/tokens.ts';
import { AppError } from '../errors.ts';
import { PROJECT_SET_USAGE, projectSet, projectSetOptions } from './project-settings.ts';

export interface CliIO {
  out(text: string): void;
  err(text: string): void;
}

/** Wrong usage: exit code 2 with a message (and the usage text) on stderr. */
export class UsageError extends Error {}

export const USAGE = `Usage:
  cms project create --name NAME [--plan basic|grow|pro] [--locales en,fr] [--default-locale en] [--description TEXT]
  ${PROJECT_SET_USAGE}
  cms token create --project UUID --abilities read,create,update,delete,admin|* [--name NAME]
  cms migrate

Storage: DATABASE_URL (PostgreSQL) or, when unset, the embedded database in DATA_DIR (default ./.data).
On success stdout carries exactly one JSON object; logs go to stderr.`;

type Options = NonNullable<ParseArgsConfig['options']>;

function parse(args: string[], options: Options): Record<string, string | boolean | undefined> {
  try {
    const { values, positionals } = parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
    if (positionals.length) throw new UsageError(`Unexpected argument "${positionals[0]}".`);
    return values as Record<string, string | boolean | undefined>;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    // node:util's messages name the offending option, e.g. "Unknown option '--nme'".
    throw new UsageError((err as Error).message);
  }
}

function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required.`);
  return v.trim();
}

const list = (v: string | boolean | undefined) =>
  typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : undefined;

interface Env {
  config: Config;
  log: Logger;
  /** Opens the database once; runs pending migrations first unless told not to (MIGRATE_ON_START). */
  db(migrateFirst?: boolean): Promise<Database>;
}

type Command = (args: string[], env: Env) => Promise<unknown>;

const commands: Record<string, Command> = {
  'project create': async (args, env) => {
    const v = parse(args, {
      name: { type: 'string' },
      plan: { type: 'string' },
      locales: { type: 'string' },
      'default-locale': { type: 'string' },
      description: { type: 'string' },
    });
    const name = required(v, 'name');
    const plan = (v.plan as string | undefined) ?? 'basic';
    if (!(PLANS as readonly string[]).includes(plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}.`);
    const locales = list(v.locales);
    if (v.locales !== undefined && !locales?.length) throw new UsageError('--locales needs at least one locale, e.g. --locales en,fr.');
    const defaultLocale = v['default-locale'] as string | undefined;
    const db = await env.db();
    const p = await createProject(db.prisma, {
      name,
      plan: plan as (typeof PLANS)[number],
      locales: locales ?? (defaultLocale ? [defaultLocale] : ['en']),
      defaultLocale,
      description: v.description as string | undefined,
    });
    return { uuid: p.uuid, name: p.name, plan: p.plan, default_locale: p.defaultLocale, locales: p.locales };
  },
  'project set': async (args, env) => projectSet(parse(args, projectSetOptions), () => env.db(), (m) => new UsageError(m)),
  'token create': async (args, env) => {
    const v = parse(args, { project: { type: 'string' }, abilities: { type: 'string' }, name: { type: 'string' } });
    const projectUuid = required(v, 'project').toLowerCase();
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(projectUuid)) {
      throw new UsageError('--project must be a project UUID (as printed by "cms project create").');
    }
    const abilities = required(v, 'abilities');
    const db = await env.db();
    const t = await issueToken(db.prisma, { projectUuid, abilities, name: (v.name as string | undefined) ?? 'CLI token' });
    return { token: t.token, abilities: t.abilities };
  },
  migrate: async (args, env) => {
    parse(args, {});
    const db = await env.db(false);
    return { applied: await migrate(db) };
  },
};

/**
 * Runs one CLI command. Returns the exit code: 0 success (one JSON object on stdout), 2 bad usage or
 * input the command rejects, 1 anything else (database unreachable, ...).
 */
export async function runCli(argv: string[], processEnv: NodeJS.ProcessEnv, io: CliIO): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.err(`${USAGE}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  const key = commands[`${argv[0]} ${argv[1] ?? ''}`] ? `${argv[0]} ${argv[1]}` : argv[0];
  const command = commands[key];
  if (!command) {
    io.err(`Unknown command "${argv.slice(0, 2).join(' ')}".\n\n${USAGE}\n`);
    return 2;
  }
  const rest = argv.slice(key.split(' ').length);
  if (rest.includes('--help') || rest.includes('-h')) {
    io.err(`${USAGE}\n`);
    return 0;
  }

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
  const env: Env = {
    config,
    log,
    async db(migrateFirst = true) {
      database ??= await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, log, poolSize: 2 });
      // A fresh database gets its tables before the first project is created.
      if (migrateFirst && config.MIGRATE_ON_START) await migrate(database);
      return database;
    },
  };
  try {
    const result = await command(rest, env);
    io.out(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (err instanceof AppError && (err.code === 'VALIDATION_FAILED' || err.code === 'NOT_FOUND' || err.code === 'BAD_REQUEST')) {
      const entries = Object.entries(err.errors ?? {});
      const single = entries.length === 1 && entries[0][1].length === 1 && entries[0][1][0] === err.message;
      const details = single ? '' : entries.map(([k, msgs]) => `  ${k}: ${msgs.join(' ')}`).join('\n');
      io.err(`${err.message}${details ? `\n${details}` : ''}\n`);
      return 2;
    }
    io.err(`cms: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await database?.close().catch(() => {});
  }
}
