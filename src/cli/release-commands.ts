import { Command, Option } from 'commander';
import { RELEASE_STATUSES, type ReleaseView } from '../releases/model.ts';
import { listReleases } from '../releases/operations/crud.ts';
import { publishReleaseNow } from '../releases/operations/publish.ts';
import { projectCtx } from './schema-commands.ts';
import type { CliEnv } from './env.ts';
import { fields, table, type CommandOutput } from './output.ts';

type Choose = (c: { json: boolean; run(env: CliEnv): Promise<CommandOutput> }) => void;

const when = (iso: string | null, none: string) => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : none);

/** `cms release list|publish` (docs/releases.md): the same operations as the REST routes, as the project's own tools (source `cms`). */
export function releaseCommand(choose: Choose, projectOption: () => Option, jsonOption: () => Option): Command {
  const command = new Command('release').description("list a project's releases and publish one (docs/releases.md)");
  command
    .command('list')
    .description('every release of the project, newest first: id, status, items, title, published')
    .addOption(projectOption())
    .addOption(new Option('--status <status>', 'only releases in this status').choices(RELEASE_STATUSES))
    .addOption(jsonOption())
    .action((o: { project: string; status?: string; json?: boolean }) =>
      choose({
        json: !!o.json,
        run: async (env) => {
          const ctx = await projectCtx(env, o.project);
          const all: ReleaseView[] = [];
          for (let page = 1; ; page++) {
            const r = await listReleases(ctx, { paginate: '100', page: String(page), ...(o.status ? { status: o.status } : {}) });
            all.push(...r.data);
            if (page * r.perPage >= r.total) break;
          }
          const rows = all.map((r) => [r.id, r.status, String(r.items.length), r.title, when(r.published_at, '-')]);
          return { json: all, human: table(['ID', 'STATUS', 'ITEMS', 'TITLE', 'PUBLISHED'], rows, 'No releases.') };
        },
      }),
    );
  command
    .command('publish')
    .description('publish a release now, in one transaction: all of its items or, if one fails, none (exit 2 with the errors)')
    .argument('<release>', 'the release id (as "cms release list" shows)')
    .addOption(projectOption())
    .addOption(jsonOption())
    .action((id: string, o: { project: string; json?: boolean }) =>
      choose({
        json: !!o.json,
        run: async (env) => {
          const r = await publishReleaseNow(await projectCtx(env, o.project), id.trim());
          const versions = r.items.filter((i) => i.version !== null).length;
          return {
            json: r,
            human: [`Published release ${r.id} (${r.title}).`, fields([['items', String(r.items.length)], ['new versions', String(versions)], ['published', when(r.published_at, '-')]])].join('\n'),
          };
        },
      }),
    );
  return command;
}
