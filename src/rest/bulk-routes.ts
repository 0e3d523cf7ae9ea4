import { ref } from './openapi/components.ts';
import { defineRoutes } from './route.ts';
import { bulkCreateEntries, bulkDeleteEntries, bulkUpdateEntries } from '../entries/operations/bulk.ts';
import { isFlag } from './list-query.ts';

/**
 * Bulk entry routes (docs/bulk.md). Bodies are checked by the operations, not by a route schema, so a
 * token without the ability gets its 403 and an unknown collection its 404 before any 422.
 */
export const bulkRoutes = defineRoutes([
  {
    method: 'POST',
    url: '/api/bulk/:collection/entries',
    successStatus: 201,
    response: { schema: ref('BulkWriteResult') },
    ability: 'create',
    bucket: 'bulk',
    summary: 'Create 1-50 entries ({ items: [{ locale?, state?, data }] }); all or nothing',
    tags: ['bulk'],
    handler: async (ctx, { params, body, query }) => ({
      status: 201,
      body: await bulkCreateEntries(ctx, params.collection, body, { timestamps: isFlag(query.timestamps) }),
    }),
  },
  {
    method: 'PATCH',
    url: '/api/bulk/:collection/entries',
    successStatus: 200,
    response: { schema: ref('BulkWriteResult') },
    ability: 'update',
    bucket: 'bulk',
    summary: 'Patch 1-50 entries ({ items: [{ uuid, locale?, state?, data }] }); state publishes or unpublishes; all or nothing',
    tags: ['bulk'],
    handler: async (ctx, { params, body, query }) => ({
      body: await bulkUpdateEntries(ctx, params.collection, body, { timestamps: isFlag(query.timestamps) }),
    }),
  },
  {
    method: 'DELETE',
    url: '/api/bulk/:collection/entries',
    successStatus: 200,
    response: { schema: ref('BulkDeleteResult') },
    ability: 'delete',
    bucket: 'bulk',
    summary: 'Delete 1-100 entries ({ uuids, force? }); unknown UUIDs are skipped; count = entries deleted',
    tags: ['bulk'],
    handler: async (ctx, { params, body, query }) => ({ body: await bulkDeleteEntries(ctx, params.collection, body, query) }),
  },
]);
