import { notFound } from '../errors.ts';
import type { EndUserCtx } from './context.ts';
import { requireSession } from './current-user.ts';
import { createApiKeyBody } from './inputs.ts';
import { parseBody } from '../errors.ts';
import { API_KEY_PREFIX, newSecret, sha256 } from './secrets.ts';
import { serializeApiKey } from './serialize.ts';

type ApiKeyView = ReturnType<typeof serializeApiKey>;

/** GET /api/auth/api-keys: the signed-in user's keys, newest first, without secrets. */
export async function listApiKeys(ctx: EndUserCtx): Promise<{ data: ApiKeyView[] }> {
  const { user } = await requireSession(ctx);
  const keys = await ctx.db.userApiKey.findMany({ where: { userId: user.id }, orderBy: { id: 'desc' } });
  return { data: keys.map(serializeApiKey) };
}

/** POST /api/auth/api-keys: 201 with the metadata and `plain_text_key`, the only time the key is shown. */
export async function createApiKey(ctx: EndUserCtx, body: unknown): Promise<ApiKeyView & { plain_text_key: string }> {
  const { user } = await requireSession(ctx);
  const input = parseBody(createApiKeyBody, body);
  const plain = newSecret(API_KEY_PREFIX);
  const key = await ctx.db.userApiKey.create({
    data: {
      userId: user.id,
      name: input.name,
      keyHash: sha256(plain),
      keyPrefix: plain.slice(0, 12),
      scopes: [...new Set(input.scopes ?? [])],
      expiresAt: input.expires_at ? new Date(input.expires_at) : null,
    },
  });
  return { ...serializeApiKey(key), plain_text_key: plain };
}

/** POST /api/auth/api-keys/{id}/revoke (numeric id or uuid): 404 for another user's key. Revoking twice is a no-op. */
export async function revokeApiKey(ctx: EndUserCtx, id: string): Promise<{ message: string; data: ApiKeyView }> {
  const { user } = await requireSession(ctx);
  const where = /^\d{1,9}$/.test(id) ? { id: Number(id) } : /^[0-9a-f-]{36}$/i.test(id) ? { uuid: id.toLowerCase() } : null;
  const key = where ? await ctx.db.userApiKey.findFirst({ where: { ...where, userId: user.id } }) : null;
  if (!key) throw notFound('API key not found.');
  if (key.revokedAt) return { message: 'API key revoked.', data: serializeApiKey(key) };
  // Guarded on revoked_at: concurrent revokes keep the first time, as sequential ones do.
  await ctx.db.userApiKey.updateMany({ where: { id: key.id, revokedAt: null }, data: { revokedAt: new Date() } });
  const revoked = await ctx.db.userApiKey.findUnique({ where: { id: key.id } });
  if (!revoked) throw notFound('API key not found.');
  return { message: 'API key revoked.', data: serializeApiKey(revoked) };
}
