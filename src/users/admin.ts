import { z } from 'zod';
import { decimalNumber, escapeLike } from '../text.ts';
import { authorize, type Ctx } from '../context.ts';
import { WHOLE_PROJECT, authorizeProjectAdmin } from '../admin-scope.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../uuid.ts';
import { updateUserBody } from './inputs.ts';
import { parseBody } from '../errors.ts';
import { serializeAdminUser, type AdminUserView } from './serialize.ts';
import { revokeSessions } from './sessions.ts';

/** The CMS side of end-user accounts (admin ability): list, change state, delete. No `auth.*` event. */

/** Query parameters arrive as text: read in decimal notation only (`0x10` is not page 16). */
const decimal = (v: unknown): unknown => (typeof v === 'string' ? decimalNumber(v) : v);

const listQuery = z.object({
  page: z.preprocess(decimal, z.number().int().min(1)).default(1),
  per_page: z.preprocess(decimal, z.number().int().min(1).max(100)).default(25),
  search: z.string().trim().max(255).optional(),
});

export interface UserPage {
  data: AdminUserView[];
  meta: { current_page: number; per_page: number; total: number; last_page: number };
}

/** GET /api/project/users: newest first; `search` matches the address (case-insensitive substring). */
export async function listUsers(ctx: Ctx, query: unknown): Promise<UserPage> {
  authorizeProjectAdmin(ctx, WHOLE_PROJECT.users);
  const q = parseBody(listQuery, query);
  const where = { projectId: ctx.project.id, ...(q.search ? { emailNormalized: { contains: escapeLike(q.search.toLowerCase()) } } : {}) };
  const [total, rows] = await Promise.all([
    ctx.db.projectUser.count({ where }),
    ctx.db.projectUser.findMany({ where, orderBy: { id: 'desc' }, skip: (q.page - 1) * q.per_page, take: q.per_page }),
  ]);
  return { data: rows.map(serializeAdminUser), meta: { current_page: q.page, per_page: q.per_page, total, last_page: Math.max(1, Math.ceil(total / q.per_page)) } };
}

async function userByUuid(ctx: Ctx, uuid: string) {
  const user = isUuid(uuid) ? await ctx.db.projectUser.findFirst({ where: { uuid: uuid.toLowerCase(), projectId: ctx.project.id } }) : null;
  if (!user) throw notFound('User not found.');
  return user;
}

export async function getUser(ctx: Ctx, uuid: string): Promise<AdminUserView> {
  authorizeProjectAdmin(ctx, WHOLE_PROJECT.users);
  return serializeAdminUser(await userByUuid(ctx, uuid));
}

/**
 * PATCH /api/project/users/{uuid}: `disabled` (true revokes every session at once, so refresh tokens and
 * access tokens stop working), `email_verified`, `display_name`, `metadata`.
 */
export async function updateUser(ctx: Ctx, uuid: string, body: unknown): Promise<AdminUserView> {
  authorizeProjectAdmin(ctx, WHOLE_PROJECT.users);
  const input = parseBody(updateUserBody, body);
  const user = await userByUuid(ctx, uuid);
  return ctx.db.$transaction(async (tx) => {
    const data: Record<string, unknown> = {};
    if (input.disabled !== undefined) data.disabledAt = input.disabled ? (user.disabledAt ?? new Date()) : null;
    if (input.email_verified !== undefined) data.emailVerifiedAt = input.email_verified ? (user.emailVerifiedAt ?? new Date()) : null;
    if (input.display_name !== undefined) data.displayName = input.display_name;
    if (input.metadata !== undefined) data.metadata = input.metadata;
    const updated = await tx.projectUser.update({ where: { id: user.id }, data });
    if (input.disabled) await revokeSessions(tx, { userId: user.id }, 'disabled');
    return serializeAdminUser(updated);
  });
}

/** DELETE /api/project/users/{uuid}: the account, its sessions, keys and identities. */
export async function deleteUser(ctx: Ctx, uuid: string): Promise<{ message: string }> {
  authorizeProjectAdmin(ctx, WHOLE_PROJECT.users);
  const user = await userByUuid(ctx, uuid);
  // By count, not by key: a concurrent delete that got there first leaves this one a 404.
  const deleted = await ctx.db.projectUser.deleteMany({ where: { id: user.id } });
  if (deleted.count === 0) throw notFound('User not found.');
  return { message: 'User deleted.' };
}
