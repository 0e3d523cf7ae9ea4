import { Command, InvalidArgumentError, Option } from 'commander';
import { isUuid } from '../uuid.ts';
import { PLANS } from '../projects/operations.ts';
import { projectCreate, projectList } from './project-commands.ts';
import { projectSet } from './project-settings.ts';
import { tokenCreate, tokenList, tokenRevoke } from './token-commands.ts';
import { health, migrateCommand } from './system-commands.ts';
import { trustedDocumentsCommand } from './trusted-document-commands.ts';
import { schemaCommand } from './schema-commands.ts';
import { transferCommands } from './transfer-commands.ts';
import { releaseCommand } from './release-commands.ts';
import type { CommandOutput } from './output.ts';
import type { CliEnv } from './env.ts';

/** The command the arguments chose, run after parsing so parsing never touches storage. */
export interface Chosen {
  run(env: CliEnv): Promise<CommandOutput>;
  json: boolean;
  /** Exit code when the command ran but reports a failure (health: a dependency is down). */
  failed?(output: CommandOutput): boolean;
}

/** Wrong usage found after parsing (exit code 2, like commander's own usage errors). */
export class UsageError extends Error {}

const projectOption = () =>
  new Option('--project <uuid>', 'the project, by UUID (as "cms project list" shows)').makeOptionMandatory().argParser((v) => {
    const uuid = v.trim().toLowerCase();
    if (!isUuid(uuid)) throw new InvalidArgumentError('Expected a project UUID (as "cms project list" shows).');
    return uuid;
  });

const jsonOption = () => new Option('--json', 'print one JSON value instead of text (for scripts)');

const list = (v: string | undefined) => (v === undefined ? undefined : v.split(',').map((s) => s.trim()).filter(Boolean));

const EXAMPLES = `
Examples:
  $ cms project list
  $ cms token create --project <uuid> --abilities '*'      # a lost first-start token: make a new one
  $ cms token list --project <uuid>
  $ cms token revoke --project <uuid> cms_AbCdEfGh
  $ cms project list --json | jq -r '.[].uuid'
  $ cms schema snapshot --project <uuid> > schema.json   # then, elsewhere: cms schema diff / apply
  $ cms export --project <uuid> --out project.ndjson       # then: cms import --project <new uuid> project.ndjson
  $ cms release list --project <uuid> --status open

Storage: DATABASE_URL (PostgreSQL) or, when unset, the embedded database in DATA_DIR (default
./.data); while a server owns the embedded database, the CLI goes through its socket.
Exit codes: 0 success, 2 bad usage or input, 1 anything else (database unreachable, a failed check).`;

/**
 * The `cms` command tree. `choose` receives the parsed command; commander writes help, version and
 * usage errors through `io` and throws instead of exiting (run.ts turns that into an exit code).
 */
export function buildProgram(version: string, io: { out(s: string): void; err(s: string): void }, choose: (c: Chosen) => void): Command {
  const program = new Command('cms')
    .description('Operator command line of the content gateway: projects, API tokens, schema and content transfer, migrations, health.')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .helpCommand('help [command]', 'show help for a command')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError('(add --help for usage)')
    .showSuggestionAfterError(true)
    .addHelpText('after', EXAMPLES);

  const project = program.command('project').description('create, list and configure projects');
  project
    .command('create')
    .description('create a project (there is no API to create one)')
    .requiredOption('--name <name>', 'project name')
    .addOption(new Option('--plan <plan>', 'plan (how many versions an entry keeps)').choices(PLANS).default('basic'))
    .option('--locales <codes>', 'comma-separated locale codes, e.g. en,fr (default: the default locale, or en)')
    .option('--default-locale <code>', 'default locale (default: the first of --locales; added to them when missing)')
    .option('--description <text>', 'free-text description')
    .addOption(jsonOption())
    .action((o: { name: string; plan: (typeof PLANS)[number]; locales?: string; defaultLocale?: string; description?: string; json?: boolean }) => {
      const locales = list(o.locales);
      if (locales !== undefined && locales.length === 0) throw new UsageError('--locales needs at least one locale, e.g. --locales en,fr.');
      choose({ json: !!o.json, run: (env) => projectCreate(env, { ...o, locales }) });
    });
  project
    .command('list')
    .description('list every project (UUID, name, plan, locales, created)')
    .addOption(jsonOption())
    .action((o: { json?: boolean }) => choose({ json: !!o.json, run: projectList }));
  project
    .command('set')
    .description("change a project's settings (docs/auth.md)")
    .addOption(projectOption())
    .option('--require-email-verification <bool>', 'end users must confirm their address before they can sign in: true or false')
    .addOption(jsonOption())
    .action((o: { project: string; requireEmailVerification?: string; json?: boolean }) =>
      choose({
        json: !!o.json,
        run: async (env) => {
          const r = await projectSet({ project: o.project, 'require-email-verification': o.requireEmailVerification }, () => env.db(), (m) => new UsageError(m));
          return { json: r, human: `Project ${r.uuid}: require email verification ${r.require_email_verification ? 'on' : 'off'}.` };
        },
      }),
    );

  const token = program.command('token').description('create, list and revoke API tokens');
  token
    .command('create')
    .description('issue an API token; the secret is printed once and only its hash is stored')
    .addOption(projectOption())
    .option('--abilities <list>', 'comma-separated: read, create, update, delete, admin, or * for all (required unless --delivery)')
    .option('--delivery', 'a delivery token: reads published content only, and a CDN may keep its answers (abilities: read)')
    .option('--name <name>', 'label shown by "cms token list"', 'CLI token')
    .option('--collections <slugs>', 'comma-separated collection slugs the token may act on (default: all)')
    .option('--fields <spec>', 'the only fields it may read and write, per collection: "posts:title,body;pages:title"')
    .option('--expires <when>', 'expiry: an ISO 8601 date-time, or a lifetime such as 90m, 12h, 30d')
    .addOption(jsonOption())
    .action((o: { project: string; abilities?: string; delivery?: boolean; name: string; collections?: string; fields?: string; expires?: string; json?: boolean }) =>
      choose({
        json: !!o.json,
        run: (env) =>
          tokenCreate(env, { projectUuid: o.project, abilities: o.abilities ?? (o.delivery ? 'read' : ''), delivery: !!o.delivery, name: o.name, collections: o.collections, fields: o.fields, expires: o.expires }),
      }),
    );
  token
    .command('list')
    .description("list a project's tokens: id, name, prefix, abilities, last used, created, revoked (never the secret)")
    .addOption(projectOption())
    .addOption(jsonOption())
    .action((o: { project: string; json?: boolean }) => choose({ json: !!o.json, run: (env) => tokenList(env, o.project) }));
  token
    .command('revoke')
    .description('revoke a token at once, on every server; revoking twice keeps the first time')
    .argument('<token>', 'the token\'s id or prefix (as "cms token list" shows), or the whole secret')
    .addOption(projectOption())
    .addOption(jsonOption())
    .action((ref: string, o: { project: string; json?: boolean }) =>
      choose({ json: !!o.json, run: (env) => tokenRevoke(env, { projectUuid: o.project, token: ref }) }),
    );

  // Commands built apart get the program's settings (exit override, output, help after errors) this way.
  const inherit = (parent: Command, child: Command): void => {
    child.copyInheritedSettings(parent);
    for (const c of child.commands) inherit(child, c as Command);
  };
  for (const c of [trustedDocumentsCommand(choose, projectOption, jsonOption), schemaCommand(choose, projectOption, jsonOption), releaseCommand(choose, projectOption, jsonOption), ...transferCommands(choose, projectOption, jsonOption)]) {
    program.addCommand(c);
    inherit(program, c);
  }

  program
    .command('migrate')
    .description('apply pending database migrations (the server also does at start unless MIGRATE_ON_START=false)')
    .addOption(jsonOption())
    .action((o: { json?: boolean }) => choose({ json: !!o.json, run: migrateCommand }));

  program
    .command('health')
    .description('check that the database and, when REDIS_URL is set, Redis answer; exit 1 if one does not (container health checks)')
    .addOption(jsonOption())
    .action((o: { json?: boolean }) =>
      choose({ json: !!o.json, run: health, failed: (out) => (out.json as { status: string }).status !== 'ok' }),
    );

  return program;
}
