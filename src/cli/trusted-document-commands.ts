import { readFile } from 'node:fs/promises';
import { Command, type Option } from 'commander';
import { notFound, validationFailed } from '../errors.ts';
import { readManifest, replaceManifest, type ManifestInput, type ManifestSummary } from '../persisted/operations.ts';
import type { CliEnv } from './env.ts';
import { fields, type CommandOutput } from './output.ts';

type Choose = (c: { json: boolean; run(env: CliEnv): Promise<CommandOutput> }) => void;

/**
 * The documents of a manifest file, in the shapes client tool chains write: `{ "<sha256>": "<text>" }`
 * (GraphQL Code Generator's persisted-documents.json), Apollo's persisted-query manifest
 * (`{ format: "apollo-persisted-query-manifest", operations: [{ id, body }] }`) or a list of texts.
 */
export function manifestDocuments(json: unknown): NonNullable<ManifestInput['documents']> {
  if (Array.isArray(json) && json.every((d) => typeof d === 'string')) return json as string[];
  if (json && typeof json === 'object' && Array.isArray((json as { operations?: unknown }).operations)) {
    const out: Record<string, string> = {};
    for (const op of (json as { operations: Array<{ id?: unknown; body?: unknown }> }).operations) {
      if (typeof op.id === 'string' && typeof op.body === 'string') out[op.id] = op.body;
      else throw validationFailed({ operations: ['Every operation of an Apollo manifest needs a string `id` and `body`.'] });
    }
    return out;
  }
  if (json && typeof json === 'object' && Object.values(json).every((d) => typeof d === 'string')) return json as Record<string, string>;
  throw validationFailed({ file: ['Expected { "<sha256>": "<document>" }, an Apollo persisted-query manifest, or a list of documents.'] });
}

async function projectIdOf(env: CliEnv, uuid: string): Promise<number> {
  const project = await (await env.db()).prisma.project.findUnique({ where: { uuid }, select: { id: true } });
  if (!project) throw notFound('Project not found.');
  return project.id;
}

const output = (m: ManifestSummary, headline: string): CommandOutput => ({
  json: { enforced: m.enforced, documents: m.documents.map((d) => ({ hash: d.hash, created_at: d.createdAt.toISOString() })) },
  human: [headline, fields([['enforced', m.enforced ? 'yes: only these documents run' : 'no: any document runs'], ['documents', String(m.documents.length)]])].join('\n'),
});

/** `cms trusted-documents put|show`: a project's manifest of allowed GraphQL documents (docs/graphql.md). */
export function trustedDocumentsCommand(choose: Choose, projectOption: () => Option, jsonOption: () => Option): Command {
  const command = new Command('trusted-documents').description("register and show a project's trusted GraphQL documents (only those run once enforced)");
  command
    .command('put')
    .description('replace the manifest with the documents of a file and/or switch enforcement')
    .addOption(projectOption())
    .option('--file <path>', 'manifest JSON: { "<sha256>": "<document>" }, an Apollo persisted-query manifest, or a list of documents')
    .option('--enforce', 'run only the manifest\'s documents from now on')
    .option('--no-enforce', 'run any document again (the manifest is kept)')
    .addOption(jsonOption())
    .action((o: { project: string; file?: string; enforce?: boolean; json?: boolean }) =>
      choose({
        json: !!o.json,
        run: async (env) => {
          let documents: ManifestInput['documents'];
          if (o.file) {
            let parsed: unknown;
            try {
              parsed = JSON.parse(await readFile(o.file, 'utf8'));
            } catch (err) {
              throw validationFailed({ file: [`Cannot read ${o.file} as JSON: ${(err as Error).message}`] });
            }
            documents = manifestDocuments(parsed);
          }
          const m = await replaceManifest((await env.db()).prisma, await projectIdOf(env, o.project), { documents, enforced: o.enforce });
          return output(m, 'Trusted documents updated (servers notice within 5 seconds).');
        },
      }),
    );
  command
    .command('show')
    .description('show whether the manifest is enforced and how many documents it holds')
    .addOption(projectOption())
    .addOption(jsonOption())
    .action((o: { project: string; json?: boolean }) =>
      choose({ json: !!o.json, run: async (env) => output(await readManifest((await env.db()).prisma, await projectIdOf(env, o.project)), 'Trusted documents') }),
    );
  return command;
}
