import { WHOLE_PROJECT } from '../admin-scope.ts';
import { z } from 'zod';
import { defineRoutes } from './route.ts';
import type { JsonSchema } from './openapi/components.ts';
import { getManifest, putManifest, serializeManifest } from '../persisted/operations.ts';

const manifestBody = z
  .object({
    documents: z.union([z.array(z.string()).max(5_000), z.record(z.string(), z.string())]).optional(),
    enforced: z.boolean().optional(),
  })
  .strict();

/** The manifest as both routes answer it. */
const manifestSchema: JsonSchema = {
  type: 'object',
  required: ['enforced', 'documents'],
  properties: {
    enforced: { type: 'boolean' },
    documents: { type: 'array', items: { type: 'object', required: ['hash', 'created_at'], properties: { hash: { type: 'string' }, created_at: { type: 'string', format: 'date-time' } } } },
  },
};

export const persistedRoutes = defineRoutes([
  {
    method: 'GET',
    url: '/api/project/trusted-documents',
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.trustedDocuments,
    summary: 'The trusted-document manifest: whether it is enforced and the sha256 of every allowed GraphQL document',
    tags: ['project'],
    successStatus: 200,
    response: { schema: manifestSchema },
    handler: async (ctx) => ({ body: serializeManifest(await getManifest(ctx)) }),
  },
  {
    method: 'PUT',
    url: '/api/project/trusted-documents',
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.trustedDocuments,
    summary: 'Replace the trusted-document manifest (`documents`: texts or `{ sha256: text }`) and/or switch enforcement (`enforced`)',
    tags: ['project'],
    body: manifestBody,
    successStatus: 200,
    response: { schema: manifestSchema },
    handler: async (ctx, { body }) => ({ body: serializeManifest(await putManifest(ctx, body as z.infer<typeof manifestBody>)) }),
  },
]);
