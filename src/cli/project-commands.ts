import type { Project } from '../db/generated/prisma/client.ts';
import { createProject, listProjects, type PlanName } from '../projects/operations.ts';
import type { CliEnv } from './env.ts';
import { fields, humanTime, table, type CommandOutput } from './output.ts';

const projectJson = (p: Project) => ({
  uuid: p.uuid,
  name: p.name,
  plan: p.plan,
  default_locale: p.defaultLocale,
  locales: p.locales,
  created_at: p.createdAt.toISOString(),
});

const localesText = (p: Project) => p.locales.map((l) => (l === p.defaultLocale ? `${l} (default)` : l)).join(', ');

export async function projectCreate(
  env: CliEnv,
  o: { name: string; plan: PlanName; locales?: string[]; defaultLocale?: string; description?: string },
): Promise<CommandOutput> {
  const db = await env.db();
  const p = await createProject(db.prisma, {
    name: o.name,
    plan: o.plan,
    locales: o.locales ?? (o.defaultLocale ? [o.defaultLocale] : ['en']),
    defaultLocale: o.defaultLocale,
    description: o.description,
  });
  const { created_at: _created, ...json } = projectJson(p);
  return {
    json,
    human: [
      'Project created.',
      fields([
        ['uuid', p.uuid],
        ['name', p.name],
        ['plan', p.plan],
        ['locales', localesText(p)],
      ]),
      '',
      `Next: cms token create --project ${p.uuid} --abilities '*'`,
    ].join('\n'),
  };
}

export async function projectList(env: CliEnv): Promise<CommandOutput> {
  const db = await env.db();
  const projects = await listProjects(db.prisma);
  return {
    json: projects.map(projectJson),
    human: table(
      ['UUID', 'NAME', 'PLAN', 'LOCALES', 'CREATED'],
      projects.map((p) => [p.uuid, p.name, p.plan, localesText(p), humanTime(p.createdAt, '')]),
      'No projects yet. Create one with: cms project create --name NAME',
    ),
  };
}
