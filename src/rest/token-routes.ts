import { WHOLE_PROJECT } from '../admin-scope.ts';
import { z } from 'zod';
import { ref } from './openapi/components.ts';
import { defineRoutes } from './route.ts';
import {
  createApiToken,
  createPreviewToken,
  listApiTokens,
  listPreviewTokens,
  revokeApiToken,
  revokePreviewToken,
} from '../auth/token-operations.ts';

const apiTokenBody = z.object({
  name: z.string(),
  abilities: z.array(z.enum(['read', 'create', 'update', 'delete', 'admin', '*'])),
  collections: z.array(z.string()).optional().describe('Collection slugs the token may act on (default: all)'),
  fields: z.record(z.string(), z.array(z.string())).optional().describe('Per collection slug, the only fields the token may read and write'),
  expires_at: z.string().optional().describe('ISO 8601 date-time, in the future'),
  delivery: z.boolean().optional().describe('A delivery token: reads published content only (abilities must be read) and a CDN may keep its answers'),
});
const previewBody = z.object({
  expires_in: z.number().int().describe('Lifetime in seconds, at most 604800 (7 days)'),
  collections: z.array(z.string()).optional().describe('Collection slugs it may read (default: all)'),
  release: z.string().optional().describe('A release id: the token reads only the published view and that release'),
});

/**
 * API and preview token administration (docs/auth.md, "API tokens"). `/api/preview-tokens` is a
 * fixed path, which the router prefers to the `/api/:collection` catch-alls whatever the table
 * order; these rows still come before the content routes, as every fixed prefix does. It is also a
 * reserved slug older projects may use as a collection: for them the collection's routes answer
 * (src/rest/reserved-slugs.ts).
 */
export const tokenRoutes = defineRoutes([
  {
    method: 'POST',
    url: '/api/project/tokens',
    successStatus: 201,
    response: { schema: ref('ApiTokenCreated') },
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.tokens,
    summary: 'Issue an API token, optionally limited to collections and fields and given an expiry; the secret is in this answer only',
    tags: ['tokens'],
    body: apiTokenBody,
    handler: async (ctx, { body }) => ({ status: 201, body: { data: await createApiToken(ctx, body) } }),
  },
  {
    method: 'GET',
    url: '/api/project/tokens',
    successStatus: 200,
    response: { schema: ref('ApiTokenList') },
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.tokens,
    summary: "The project's API tokens, revoked ones included, without secrets",
    tags: ['tokens'],
    handler: async (ctx) => ({ body: { data: await listApiTokens(ctx) } }),
  },
  {
    method: 'DELETE',
    url: '/api/project/tokens/:id',
    successStatus: 200,
    response: { schema: ref('ApiTokenResponse') },
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.tokens,
    summary: 'Revoke an API token: refused (401) from the next request on, on every replica',
    tags: ['tokens'],
    handler: async (ctx, { params }) => ({ body: { data: await revokeApiToken(ctx, params.id) } }),
  },
  {
    method: 'POST',
    url: '/api/preview-tokens',
    reservedSlug: 'preview-tokens',
    successStatus: 201,
    response: { schema: ref('PreviewTokenCreated') },
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.tokens,
    summary: 'Issue a read-only preview token (published, draft and release views) for a frontend draft mode',
    tags: ['tokens'],
    body: previewBody,
    handler: async (ctx, { body }) => ({ status: 201, body: { data: await createPreviewToken(ctx, body) } }),
  },
  {
    method: 'GET',
    url: '/api/preview-tokens',
    reservedSlug: 'preview-tokens',
    successStatus: 200,
    response: { schema: ref('PreviewTokenList') },
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.tokens,
    summary: "The project's preview tokens, revoked and expired ones included, without secrets",
    tags: ['tokens'],
    handler: async (ctx) => ({ body: { data: await listPreviewTokens(ctx) } }),
  },
  {
    method: 'DELETE',
    url: '/api/preview-tokens/:id',
    reservedSlug: 'preview-tokens',
    successStatus: 200,
    response: { schema: ref('PreviewTokenResponse') },
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.tokens,
    summary: 'Revoke a preview token',
    tags: ['tokens'],
    handler: async (ctx, { params }) => ({ body: { data: await revokePreviewToken(ctx, params.id) } }),
  },
]);
