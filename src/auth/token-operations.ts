import { z } from 'zod';
import type { Ctx } from '../context.ts';
import { WHOLE_PROJECT, authorizeProjectAdmin } from '../admin-scope.ts';
import { forbidden, notFound, zodToAppError } from '../errors.ts';
import { isUuid } from '../uuid.ts';
import { issueToken, listTokens, revokeToken, type IssuedToken, type TokenSummary } from './tokens.ts';
import { isoOrNull } from '../text.ts';

/**
 * Token administration over the API (docs/auth.md, "API tokens"): the `admin` ability, and a token
 * without a scope. A scoped token managing tokens could issue, reveal or widen one broader than
 * itself, so it may not (src/admin-scope.ts); nor may a preview or delivery token of any kind.
 */
function requireTokenAdmin(ctx: Ctx): void {
  authorizeProjectAdmin(ctx, WHOLE_PROJECT.tokens);
  if (ctx.scope) throw forbidden('Forbidden. A preview or delivery token cannot manage tokens.');
}

const apiTokenBody = z.object({
  name: z.string().trim().min(1).max(255),
  abilities: z.array(z.string()).min(1),
  collections: z.array(z.string()).nullish(),
  fields: z.record(z.string(), z.array(z.string())).nullish(),
  expires_at: z.string().nullish(),
  delivery: z.boolean().nullish(),
});


export const serializeApiToken = (t: TokenSummary) => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  abilities: t.abilities,
  collections: t.collections,
  fields: t.fields,
  delivery: t.delivery,
  expires_at: isoOrNull(t.expiresAt),
  last_used_at: isoOrNull(t.lastUsedAt),
  created_at: t.createdAt.toISOString(),
  revoked_at: isoOrNull(t.revokedAt),
});

const issued = (t: IssuedToken) => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  token: t.token,
  abilities: t.abilities,
  collections: t.collections,
  fields: t.fields,
  delivery: t.delivery,
  expires_at: isoOrNull(t.expiresAt),
});

/** POST /api/project/tokens: the secret is in this answer only. */
export async function createApiToken(ctx: Ctx, body: unknown) {
  requireTokenAdmin(ctx);
  const parsed = apiTokenBody.safeParse(body ?? {});
  if (!parsed.success) throw zodToAppError(parsed.error);
  const b = parsed.data;
  const token = await issueToken(ctx.db, {
    projectUuid: ctx.project.uuid,
    name: b.name,
    abilities: b.abilities,
    delivery: b.delivery ?? false,
    scope: { collections: b.collections, fields: b.fields, expiresAt: b.expires_at },
  });
  return issued(token);
}

export async function listApiTokens(ctx: Ctx) {
  requireTokenAdmin(ctx);
  return (await listTokens(ctx.db, ctx.project.uuid, 'api')).map(serializeApiToken);
}

/** DELETE /api/project/tokens/{id}: revoked at once on every replica (the change notification). */
export async function revokeApiToken(ctx: Ctx, id: string) {
  requireTokenAdmin(ctx);
  if (!/^\d{1,15}$/.test(id)) throw notFound('Token not found.');
  return serializeApiToken(await revokeToken(ctx.db, { projectUuid: ctx.project.uuid, token: id, kind: 'api' }));
}

/** The longest a preview token may live: a week. */
export const PREVIEW_MAX_SECONDS = 7 * 24 * 3600;

const previewBody = z.object({
  expires_in: z.number().int().min(1).max(PREVIEW_MAX_SECONDS, `The expires_in field must be at most ${PREVIEW_MAX_SECONDS} seconds (7 days).`),
  collections: z.array(z.string()).nullish(),
  release: z.string().refine(isUuid, 'The release field must be a release id (a UUID).').nullish(),
});

export const serializePreviewToken = (t: TokenSummary) => ({
  id: t.id,
  prefix: t.prefix,
  collections: t.collections,
  release: t.releaseId,
  expires_at: isoOrNull(t.expiresAt),
  last_used_at: isoOrNull(t.lastUsedAt),
  created_at: t.createdAt.toISOString(),
  revoked_at: isoOrNull(t.revokedAt),
});

/**
 * POST /api/preview-tokens: a read-only token (published, draft and release views) for a
 * frontend's draft mode, limited in time and optionally to collections or a release. It is an API
 * token of kind `preview` with the `read` ability only, so every write is refused by the ability check.
 */
export async function createPreviewToken(ctx: Ctx, body: unknown, now = new Date()) {
  requireTokenAdmin(ctx);
  const parsed = previewBody.safeParse(body ?? {});
  if (!parsed.success) throw zodToAppError(parsed.error);
  const b = parsed.data;
  const token = await issueToken(ctx.db, {
    projectUuid: ctx.project.uuid,
    abilities: ['read'],
    kind: 'preview',
    releaseId: b.release?.toLowerCase() ?? null,
    scope: { collections: b.collections, expiresAt: new Date(now.getTime() + b.expires_in * 1000) },
  });
  return { id: token.id, token: token.token, expires_at: isoOrNull(token.expiresAt) };
}

export async function listPreviewTokens(ctx: Ctx) {
  requireTokenAdmin(ctx);
  return (await listTokens(ctx.db, ctx.project.uuid, 'preview')).map(serializePreviewToken);
}

export async function revokePreviewToken(ctx: Ctx, id: string) {
  requireTokenAdmin(ctx);
  if (!/^\d{1,15}$/.test(id)) throw notFound('Token not found.');
  return serializePreviewToken(await revokeToken(ctx.db, { projectUuid: ctx.project.uuid, token: id, kind: 'preview' }));
}
