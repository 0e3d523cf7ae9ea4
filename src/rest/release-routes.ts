import { WHOLE_PROJECT } from '../admin-scope.ts';
import { z } from 'zod';
import { ref } from './openapi/components.ts';
import { defineRoutes, type RouteDef } from './route.ts';
import { addReleaseItems, createRelease, deleteRelease, getRelease, listReleases, removeReleaseItem, updateRelease } from '../releases/operations/crud.ts';
import { publishReleaseNow } from '../releases/operations/publish.ts';
import { scheduleRelease, unscheduleRelease } from '../releases/operations/schedule.ts';
import { createBody, itemsBody, updateBody } from '../releases/input.ts';
import { RELEASE_STATUSES } from '../releases/model.ts';
import { laravelPage } from './paginator.ts';
import { requestPath } from './content-routes.ts';

/** `/api/releases` is a reserved slug that older projects may use as a collection (src/rest/reserved-slugs.ts). */
const common: Pick<RouteDef, 'tags' | 'reservedSlug'> = { tags: ['releases'], reservedSlug: 'releases' };

const listQuery = z.object({
  status: z.enum(RELEASE_STATUSES).optional().describe('Only releases in this status'),
  paginate: z.string().optional().describe('Page size (default 25, at most 100)'),
  page: z.string().optional(),
});

/** Releases (docs/releases.md): entries of several collections published or unpublished together. */
export const releaseRoutes = defineRoutes([
  {
    ...common,
    method: 'GET',
    url: '/api/releases',
    ability: 'read',
    wholeProject: WHOLE_PROJECT.releases,
    successStatus: 200,
    response: { schema: ref('ReleasePaginator') },
    summary: "The project's releases, newest first, as a paginator (status, paginate, page)",
    query: listQuery,
    handler: async (ctx, input) => {
      const r = await listReleases(ctx, input.query);
      return { body: laravelPage(r.data, { ...r, path: requestPath(ctx, input), query: input.query }) };
    },
  },
  {
    ...common,
    method: 'POST',
    url: '/api/releases',
    ability: 'update',
    wholeProject: WHOLE_PROJECT.releases,
    successStatus: 201,
    response: { schema: ref('ReleaseResult') },
    summary: 'Create a release ({ title, description? })',
    body: createBody,
    handler: async (ctx, { body }) => ({ status: 201, body: { data: await createRelease(ctx, body) } }),
  },
  {
    ...common,
    method: 'GET',
    url: '/api/releases/:release',
    ability: 'read',
    wholeProject: WHOLE_PROJECT.releases,
    successStatus: 200,
    response: { schema: ref('ReleaseResult') },
    summary: 'Get a release with its items',
    handler: async (ctx, { params }) => ({ body: { data: await getRelease(ctx, params.release) } }),
  },
  {
    ...common,
    method: 'PATCH',
    url: '/api/releases/:release',
    ability: 'update',
    wholeProject: WHOLE_PROJECT.releases,
    successStatus: 200,
    response: { schema: ref('ReleaseResult') },
    summary: 'Change a release\'s title or description',
    body: updateBody,
    handler: async (ctx, { params, body }) => ({ body: { data: await updateRelease(ctx, params.release, body) } }),
  },
  {
    ...common,
    method: 'DELETE',
    url: '/api/releases/:release',
    ability: 'update',
    wholeProject: WHOLE_PROJECT.releases,
    successStatus: 204,
    response: { description: 'Done; no body.' },
    summary: 'Delete a release (its entries are untouched); a published release cannot be deleted (409)',
    handler: async (ctx, { params }) => {
      await deleteRelease(ctx, params.release);
      return { status: 204 };
    },
  },
  {
    ...common,
    method: 'POST',
    url: '/api/releases/:release/items',
    ability: 'update',
    wholeProject: WHOLE_PROJECT.releases,
    successStatus: 200,
    response: { schema: ref('ReleaseResult') },
    summary: 'Add items ({ items: [{ collection, uuid, action: publish|unpublish, locale? }] }: at most 100 per call, 500 per release, an entry once per release)',
    body: itemsBody,
    handler: async (ctx, { params, body }) => ({ body: { data: await addReleaseItems(ctx, params.release, body) } }),
  },
  {
    ...common,
    method: 'DELETE',
    url: '/api/releases/:release/items/:item',
    ability: 'update',
    wholeProject: WHOLE_PROJECT.releases,
    successStatus: 200,
    response: { schema: ref('ReleaseResult') },
    summary: 'Remove an item from a release',
    handler: async (ctx, { params }) => ({ body: { data: await removeReleaseItem(ctx, params.release, params.item) } }),
  },
  {
    ...common,
    method: 'POST',
    url: '/api/releases/:release/publish',
    ability: 'update',
    wholeProject: WHOLE_PROJECT.releases,
    successStatus: 200,
    response: { schema: ref('ReleaseResult') },
    summary: 'Publish the release in one transaction: every publish item\'s draft goes live, every unpublish item is unpublished; any failing item: 422 (items.<n>.<field>) and nothing changes',
    handler: async (ctx, { params }) => ({ body: { data: await publishReleaseNow(ctx, params.release) } }),
  },
  {
    ...common,
    method: 'POST',
    url: '/api/releases/:release/schedule',
    ability: 'update',
    wholeProject: WHOLE_PROJECT.releases,
    successStatus: 200,
    body: z.object({ publish_at: z.string().describe('ISO 8601 time in the future') }),
    response: { schema: ref('ReleaseResult') },
    summary: 'Schedule the release\'s publish at publish_at (status scheduled; rescheduling replaces the time); a published release: 409',
    handler: async (ctx, { params, body }) => ({ body: { data: await scheduleRelease(ctx, params.release, body) } }),
  },
  {
    ...common,
    method: 'DELETE',
    url: '/api/releases/:release/schedule',
    ability: 'update',
    wholeProject: WHOLE_PROJECT.releases,
    successStatus: 200,
    response: { schema: ref('ReleaseResult') },
    summary: 'Unschedule the release (back to open); a release that is not scheduled: 409',
    handler: async (ctx, { params }) => ({ body: { data: await unscheduleRelease(ctx, params.release) } }),
  },
]);
