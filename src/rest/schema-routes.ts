import { WHOLE_PROJECT } from '../admin-scope.ts';
import { z } from 'zod';
import { defineRoutes } from './route.ts';
import type { JsonSchema } from './openapi/components.ts';
import { applySchema, diffSchema } from '../project-model/apply.ts';
import { snapshotSchema } from '../project-model/snapshot.ts';

/** The schema document (docs/foundation.md, "Carrying the schema between environments"). */
const documentSchema: JsonSchema = {
  type: 'object',
  required: ['format', 'version', 'collections'],
  properties: {
    format: { type: 'string', enum: ['content-gateway/schema'] },
    version: { type: 'integer', enum: [1] },
    locales: { type: 'object', properties: { available: { type: 'array', items: { type: 'string' } }, default: { type: 'string' } } },
    collections: { type: 'array', items: { type: 'object', description: 'uuid, name, slug, is_singleton, order, fields (field documents; groups carry children)' } },
    webhooks: { type: 'array', items: { type: 'object', description: 'uuid, name, description, url, events, sources, payload, status, collections (slugs); never the secret' } },
    trusted_documents: { type: 'object', properties: { enforced: { type: 'boolean' }, documents: { type: 'object', additionalProperties: { type: 'string' } } } },
  },
};

const change: JsonSchema = {
  type: 'object',
  required: ['action', 'kind', 'target', 'destructive'],
  properties: {
    action: { type: 'string', enum: ['create', 'update', 'delete'] },
    kind: { type: 'string' },
    target: { type: 'string' },
    changes: { type: 'object', additionalProperties: { type: 'object', properties: { from: {}, to: {} } } },
    destructive: { type: 'boolean' },
  },
};
const diffBody: JsonSchema = { type: 'object', required: ['changes', 'destructive'], properties: { changes: { type: 'array', items: change }, destructive: { type: 'integer' } } };

const documentBody = z.record(z.string(), z.unknown()).describe('a schema document, as GET /api/project/schema answers it');
const applyQuery = z.object({ allow_destructive: z.enum(['true', 'false']).optional().describe('apply changes that delete collections, fields, locales, webhooks or trusted documents') });

export const schemaRoutes = defineRoutes([
  {
    method: 'GET',
    url: '/api/project/schema',
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.schema,
    summary: 'The content model as a document: locales, collections and fields, webhooks (without secrets), trusted documents',
    tags: ['project'],
    successStatus: 200,
    response: { schema: documentSchema },
    handler: async (ctx) => ({ body: await snapshotSchema(ctx) }),
  },
  {
    method: 'POST',
    url: '/api/project/schema/diff',
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.schema,
    summary: 'What applying a schema document would change (nothing is changed)',
    tags: ['project'],
    body: documentBody,
    successStatus: 200,
    response: { schema: diffBody },
    handler: async (ctx, { body }) => ({ body: await diffSchema(ctx, body) }),
  },
  {
    method: 'POST',
    url: '/api/project/schema/apply',
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.schema,
    summary: 'Make the project match a schema document, in one transaction; destructive changes need `allow_destructive=true`',
    tags: ['project'],
    body: documentBody,
    query: applyQuery,
    successStatus: 200,
    response: { schema: { ...diffBody, properties: { ...(diffBody.properties as object), schema_revision: { type: 'integer' } } } },
    handler: async (ctx, { body, query }) => ({ body: await applySchema(ctx, body, { allowDestructive: query.allow_destructive === 'true' }) }),
  },
]);
