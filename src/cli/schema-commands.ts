import { readFile } from 'node:fs/promises';
import { Command, type Option } from 'commander';
import { systemCtx, type Ctx } from '../context.ts';
import { notFound, validationFailed } from '../errors.ts';
import { applySchema, diffSchema } from '../project-model/apply.ts';
import { renderDiff } from '../project-model/changes.ts';
import { snapshotSchema } from '../project-model/snapshot.ts';
import type { CliEnv } from './env.ts';
import type { CommandOutput } from './output.ts';

type Choose = (c: { json: boolean; run(env: CliEnv): Promise<CommandOutput> }) => void;

/** The operator acting on one project (source `cms`), through the same operations as the API. */
export async function projectCtx(env: CliEnv, uuid: string): Promise<Ctx> {
  const services = await env.services();
  const project = await services.database.prisma.project.findUnique({ where: { uuid } });
  if (!project) throw notFound('Project not found.');
  return systemCtx(services, project);
}

/** A JSON file, or standard input for `-`. */
export async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = path === '-' ? await readStdin() : await readFile(path, 'utf8');
  } catch (err) {
    throw validationFailed({ file: [`Cannot read ${path}: ${(err as Error).message}`] });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw validationFailed({ file: [`${path} is not JSON: ${(err as Error).message}`] });
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `cms schema snapshot|diff|apply`: the content model as a document in git (docs/foundation.md). */
export function schemaCommand(choose: Choose, projectOption: () => Option, jsonOption: () => Option): Command {
  const command = new Command('schema').description("carry a project's content model between environments as a JSON document");
  command
    .command('snapshot')
    .description('print the model as a schema document: locales, collections and fields, webhooks (without secrets), trusted documents')
    .addOption(projectOption())
    .addOption(jsonOption())
    .action((o: { project: string; json?: boolean }) =>
      choose({
        json: !!o.json,
        run: async (env) => {
          const doc = await snapshotSchema(await projectCtx(env, o.project));
          return { json: doc, human: JSON.stringify(doc, null, 2) };
        },
      }),
    );
  command
    .command('diff')
    .description('show what "schema apply" would change (changes nothing)')
    .argument('<file>', 'schema document (as "schema snapshot" prints), or - for standard input')
    .addOption(projectOption())
    .addOption(jsonOption())
    .action((file: string, o: { project: string; json?: boolean }) =>
      choose({
        json: !!o.json,
        run: async (env) => {
          const diff = await diffSchema(await projectCtx(env, o.project), await readJsonFile(file));
          return { json: diff, human: renderDiff(diff) };
        },
      }),
    );
  command
    .command('apply')
    .description('make the project match the document, in one transaction; applying twice changes nothing the second time')
    .argument('<file>', 'schema document, or - for standard input')
    .addOption(projectOption())
    .option('--allow-destructive', 'also delete collections, fields, locales, webhooks and trusted documents the document no longer has')
    .addOption(jsonOption())
    .action((file: string, o: { project: string; allowDestructive?: boolean; json?: boolean }) =>
      choose({
        json: !!o.json,
        run: async (env) => {
          const result = await applySchema(await projectCtx(env, o.project), await readJsonFile(file), { allowDestructive: !!o.allowDestructive });
          const human = result.changes.length ? `${renderDiff(result)}\nApplied (schema revision ${result.schema_revision}).` : renderDiff(result);
          return { json: result, human };
        },
      }),
    );
  return command;
}
