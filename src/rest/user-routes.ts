import { WHOLE_PROJECT } from '../admin-scope.ts';
import { defineRoutes } from './route.ts';
import { ref } from './openapi/components.ts';
import { updateUserBody } from '../users/inputs.ts';
import { deleteUser, getUser, listUsers, updateUser } from '../users/admin.ts';

/**
 * The CMS side of a project's end users (admin ability); docs/auth.md. Under /api/project/ rather than
 * /api/users: `users` is a common collection slug, and /api/{collection} must keep serving it.
 */
export const userRoutes = defineRoutes([
  {
    method: 'GET',
    url: '/api/project/users',
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.users,
    summary: "List the project's end users (`page`, `per_page` up to 100, `search` on the address)",
    tags: ['users'],
    successStatus: 200,
    response: { schema: ref('AdminUserPage') },
    handler: async (ctx, { query }) => ({ body: await listUsers(ctx, query) }),
  },
  {
    method: 'GET',
    url: '/api/project/users/:uuid',
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.users,
    summary: 'Get one end user',
    tags: ['users'],
    successStatus: 200,
    response: { schema: ref('AdminUser') },
    handler: async (ctx, { params }) => ({ body: await getUser(ctx, params.uuid) }),
  },
  {
    method: 'PATCH',
    url: '/api/project/users/:uuid',
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.users,
    summary: 'Disable or enable an end user (`disabled`: disabling signs them out everywhere), mark the address verified, edit display name or metadata',
    tags: ['users'],
    body: updateUserBody,
    successStatus: 200,
    response: { schema: ref('AdminUser') },
    handler: async (ctx, { raw, params }) => ({ body: await updateUser(ctx, params.uuid, raw.body) }),
  },
  {
    method: 'DELETE',
    url: '/api/project/users/:uuid',
    ability: 'admin',
    wholeProject: WHOLE_PROJECT.users,
    summary: 'Delete an end user with their sessions and keys',
    tags: ['users'],
    successStatus: 200,
    response: { schema: ref('Message') },
    handler: async (ctx, { params }) => ({ body: await deleteUser(ctx, params.uuid) }),
  },
]);
