import { z } from 'zod';
import type { Project } from '../db/generated/prisma/client.ts';
import { withinTransaction, type Tx } from '../db/client.ts';
import { authorize, type Ctx } from '../context.ts';
import { WHOLE_PROJECT, authorizeProjectAdmin } from '../admin-scope.ts';
import { notFound, validationFailed, zodToAppError } from '../errors.ts';
import { fallbacksWithout, localeFallbacks } from './locale-chain.ts';

export const PLANS = ['basic', 'grow', 'pro'] as const;
export type PlanName = (typeof PLANS)[number];

/** Locale codes are lowercased; `en`, `pt-br`, `zh-hant`. */
export const localeCode = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z]{2,3}(-[a-z0-9]{2,8})*$/, 'The locale must be a code such as "en" or "pt-br".');

const createProjectInput = z
  .object({
    name: z.string().trim().min(1).max(255),
    description: z.string().max(2000).nullish(),
    plan: z.enum(PLANS).default('basic'),
    locales: z.array(localeCode).min(1).max(100).default(['en']),
    defaultLocale: localeCode.optional(),
  })
  .transform((v) => {
    const locales = [...new Set(v.locales)];
    const defaultLocale = v.defaultLocale ?? locales[0];
    if (!locales.includes(defaultLocale)) locales.unshift(defaultLocale);
    return { ...v, locales, defaultLocale };
  });

export type CreateProjectInput = z.input<typeof createProjectInput>;

/** Projects are created by the operator (CLI, seeding): there is no public API to mint them. */
export async function createProject(db: Tx, input: CreateProjectInput): Promise<Project> {
  const parsed = createProjectInput.safeParse(input);
  if (!parsed.success) throw zodToAppError(parsed.error);
  const { name, description, plan, locales, defaultLocale } = parsed.data;
  return db.project.create({ data: { name, description: description ?? null, plan, locales, defaultLocale } });
}

export function getProject(ctx: Ctx): Project {
  authorize(ctx, 'read');
  return ctx.project;
}

/**
 * GET /api `with`: `collections`, `fields` or both, as a comma list or an array (`with[]=`).
 * `fields` implies `collections` (docs/foundation.md); unknown words are ignored.
 */
export function parseWith(raw: unknown): { collections: boolean; fields: boolean } {
  const words = (Array.isArray(raw) ? raw : [raw])
    .filter((v): v is string => typeof v === 'string')
    .flatMap((v) => v.split(','))
    .map((v) => v.trim().toLowerCase());
  const fields = words.includes('fields');
  return { collections: fields || words.includes('collections'), fields };
}

/** Public shape of a project (docs/foundation.md). */
export function serializeProject(p: Project) {
  return {
    uuid: p.uuid,
    name: p.name,
    description: p.description,
    plan: p.plan,
    default_locale: p.defaultLocale,
    locales: p.locales,
    /** Per locale, the locale its fallback reads try next; locales without a fallback are absent. */
    locale_fallbacks: localeFallbacks(p),
    require_email_verification: p.requireEmailVerification,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

function parseLocale(input: unknown): string {
  const parsed = z.object({ locale: localeCode }).safeParse({ locale: input });
  if (!parsed.success) throw zodToAppError(parsed.error);
  return parsed.data.locale;
}

/**
 * Serialises, until the transaction ends, the project-wide writes that read before they write (locale
 * list, trusted-document manifest): concurrent ones queue here and each sees the previous one's result.
 */
export async function lockProjectRow(tx: Tx, projectId: number): Promise<void> {
  await tx.$queryRaw`SELECT id FROM projects WHERE id = ${projectId} FOR UPDATE`;
}

/**
 * Runs a change of the project's locales on the project row as it is now, locked: `ctx.project` is
 * what authentication read (possibly cached), and concurrent locale changes must each see the
 * previous one's result, or two adds of one locale would both append it and a remove would put back
 * a locale another request just added.
 */
async function changeLocales(ctx: Ctx, change: (project: Project) => { locales: string[]; defaultLocale?: string; localeFallbacks?: Record<string, string> } | null): Promise<Project> {
  ctx.project = await withinTransaction(ctx.db, async (tx) => {
    await lockProjectRow(tx, ctx.project.id);
    const project = await tx.project.findUniqueOrThrow({ where: { id: ctx.project.id } });
    const data = change(project);
    return data ? tx.project.update({ where: { id: project.id }, data }) : project;
  });
  return ctx.project;
}

/** Adds a locale to the project (idempotent). */
export async function addLocale(ctx: Ctx, locale: unknown): Promise<Project> {
  authorizeProjectAdmin(ctx, WHOLE_PROJECT.project);
  const code = parseLocale(locale);
  return changeLocales(ctx, (p) => (p.locales.includes(code) ? null : { locales: [...p.locales, code] }));
}

/**
 * Removes a locale; the default locale cannot be removed, nor a locale another one falls back to
 * (locale-chain.ts). Entries keep their locale value.
 */
export async function removeLocale(ctx: Ctx, locale: unknown): Promise<Project> {
  authorizeProjectAdmin(ctx, WHOLE_PROJECT.project);
  const code = parseLocale(locale);
  return changeLocales(ctx, (p) => {
    if (code === p.defaultLocale) throw validationFailed({ locale: ['The default locale cannot be removed.'] });
    if (!p.locales.includes(code)) throw notFound(`Locale '${code}' is not configured.`);
    return { locales: p.locales.filter((l) => l !== code), localeFallbacks: fallbacksWithout(p, code) };
  });
}

/** Sets the default locale, adding it to the project's locales when missing (docs/foundation.md). */
export async function setDefaultLocale(ctx: Ctx, locale: unknown): Promise<Project> {
  authorizeProjectAdmin(ctx, WHOLE_PROJECT.project);
  const code = parseLocale(locale);
  return changeLocales(ctx, (p) => ({ locales: p.locales.includes(code) ? p.locales : [...p.locales, code], defaultLocale: code }));
}

/** Every project, oldest first: for the operator (CLI), who has no token to ask the API with. */
export async function listProjects(db: Tx): Promise<Project[]> {
  return db.project.findMany({ orderBy: { id: 'asc' } });
}

const settingsInput = z
  .object({
    require_email_verification: z.boolean({ error: 'The require email verification field must be true or false.' }).optional(),
  })
  .strict();

export type ProjectSettingsInput = z.input<typeof settingsInput>;

/**
 * PATCH /api/project: project settings. Today one: whether end users must confirm their address
 * before they can sign in (docs/auth.md). Keys not sent keep their value; unknown keys are 422.
 */
export async function updateProjectSettings(ctx: Ctx, input: unknown): Promise<Project> {
  authorizeProjectAdmin(ctx, WHOLE_PROJECT.project);
  ctx.project = await applySettings(ctx.db, ctx.project, input);
  return ctx.project;
}

/** The operator's path to the same settings (CLI `cms project set`): no token, the project by UUID. */
export async function updateProjectSettingsByUuid(db: Tx, projectUuid: string, input: unknown): Promise<Project> {
  const project = await db.project.findUnique({ where: { uuid: projectUuid } });
  if (!project) throw notFound('Project not found.');
  return applySettings(db, project, input);
}

async function applySettings(db: Tx, project: Project, input: unknown): Promise<Project> {
  const parsed = settingsInput.safeParse(input ?? {});
  if (!parsed.success) throw zodToAppError(parsed.error);
  const data: { requireEmailVerification?: boolean } = {};
  if (parsed.data.require_email_verification !== undefined) data.requireEmailVerification = parsed.data.require_email_verification;
  if (Object.keys(data).length === 0) return project;
  return db.project.update({ where: { id: project.id }, data });
}
