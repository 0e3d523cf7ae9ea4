import { WHOLE_PROJECT } from '../admin-scope.ts';
import { ref } from './openapi/components.ts';
import { defineRoutes } from './route.ts';
import {
  createCollection,
  createField,
  deleteCollection,
  deleteField,
  getCollection,
  listCollections,
  reorderCollections,
  reorderFields,
  serializeCollection,
  serializeField,
  updateCollection,
  updateField,
} from '../collections/operations.ts';

/** Collections and fields admin (docs/foundation.md). Reads need `read`, everything else `admin`. */
export const collectionRoutes = defineRoutes([
  {
    method: 'GET',
    url: '/api/collections',
    successStatus: 200,
    response: { schema: ref('CollectionList') },
    ability: 'read',
    summary: 'List collections (ordered by `order`), each with its fields',
    tags: ['collections'],
    handler: async (ctx) => ({ body: (await listCollections(ctx)).map((c) => serializeCollection(c, { withFields: true })) }),
  },
  {
    method: 'POST',
    url: '/api/collections',
    successStatus: 201,
    response: { schema: ref('Collection') },
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.newCollections,
    summary: 'Create a collection, optionally with fields (groups may carry `children`)',
    tags: ['collections'],
    handler: async (ctx, { body }) => ({ status: 201, body: serializeCollection(await createCollection(ctx, body), { withFields: true }) }),
  },
  {
    method: 'POST',
    url: '/api/collections/reorder',
    successStatus: 200,
    response: { schema: ref('Message') },
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.collectionOrder,
    summary: 'Reorder collections: `{ collections: [{ uuid, order }] }`',
    tags: ['collections'],
    handler: async (ctx, { body }) => ({ body: await reorderCollections(ctx, body) }),
  },
  {
    method: 'GET',
    url: '/api/collections/:slug',
    successStatus: 200,
    response: { schema: ref('Collection') },
    ability: 'read',
    summary: 'Get a collection with its fields',
    tags: ['collections'],
    handler: async (ctx, { params }) => ({ body: serializeCollection(await getCollection(ctx, params.slug), { withFields: true }) }),
  },
  {
    method: 'PUT',
    url: '/api/collections/:slug',
    successStatus: 200,
    response: { schema: ref('Collection') },
    ability: 'admin',
    summary: 'Rename a collection or change its slug: `{ name, slug }`',
    tags: ['collections'],
    handler: async (ctx, { params, body }) => ({ body: serializeCollection(await updateCollection(ctx, params.slug, body)) }),
  },
  {
    method: 'DELETE',
    url: '/api/collections/:slug',
    successStatus: 204,
    response: { description: 'Done; no body.' },
    ability: 'admin',
    summary: 'Delete a collection with its fields and entries; body `{ slug }` must repeat the path slug',
    tags: ['collections'],
    handler: async (ctx, { params, body }) => {
      await deleteCollection(ctx, params.slug, body);
      return { status: 204 };
    },
  },
  {
    method: 'POST',
    url: '/api/collections/:slug/fields',
    successStatus: 201,
    response: { schema: ref('Field') },
    ability: 'admin',
    summary: 'Add a field (use `parent_field_id` to add it to a group)',
    tags: ['fields'],
    handler: async (ctx, { params, body }) => ({ status: 201, body: serializeField(await createField(ctx, params.slug, body)) }),
  },
  {
    method: 'POST',
    url: '/api/collections/:slug/fields/reorder',
    successStatus: 200,
    response: { schema: ref('Message') },
    ability: 'admin',
    summary: 'Reorder fields: `{ fields: [{ uuid, order }] }`',
    tags: ['fields'],
    handler: async (ctx, { params, body }) => ({ body: await reorderFields(ctx, params.slug, body) }),
  },
  {
    method: 'PUT',
    url: '/api/collections/:slug/fields/:fieldUuid',
    successStatus: 200,
    response: { schema: ref('Field') },
    ability: 'admin',
    summary: 'Replace a field document (type, label and name required)',
    tags: ['fields'],
    handler: async (ctx, { params, body }) => ({ body: serializeField(await updateField(ctx, params.slug, params.fieldUuid, body)) }),
  },
  {
    method: 'DELETE',
    url: '/api/collections/:slug/fields/:fieldUuid',
    successStatus: 204,
    response: { description: 'Done; no body.' },
    ability: 'admin',
    summary: 'Soft-delete a field (a group takes its children with it)',
    tags: ['fields'],
    handler: async (ctx, { params }) => {
      await deleteField(ctx, params.slug, params.fieldUuid);
      return { status: 204 };
    },
  },
]);
