import { z } from 'zod';
import { defineRoutes } from './route.ts';
import { getManifest, putManifest, serializeManifest } from '../persisted/operations.ts';

const manifestBody = z
  .object({
    documents: z.union([z.array(z.string()).max(5_000), z.record(z.string(), z.string())]).optional(),
    enforced: z.boolean().optional(),
  })
  .strict();

export const persistedRoutes = defineRoutes([
  {
    method: 'GET',
    url: '/api/project/trusted-documents',
    ability: 'admin',
    summary: 'The trusted-document manifest: whether it is enforced and the sha256 of every allowed GraphQL document',
    tags: ['project'],
    handler: async (ctx) => ({ body: serializeManifest(await getManifest(ctx)) }),
  },
  {
    method: 'PUT',
    url: '/api/project/trusted-documents',
    ability: 'admin',
    summary: 'Replace the trusted-document manifest (`documents`: texts or `{ sha256: text }`) and/or switch enforcement (`enforced`)',
    tags: ['project'],
    body: manifestBody,
    handler: async (ctx, { body }) => ({ body: serializeManifest(await putManifest(ctx, body as z.infer<typeof manifestBody>)) }),
  },
]);
