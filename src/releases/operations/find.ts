import type { Tx } from '../../db/client.ts';
import type { Ctx } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { isUuid } from '../../entries/types.ts';
import { RELEASE_INCLUDE, type ReleaseRow } from '../model.ts';

export const RELEASE_NOT_FOUND = 'Release not found.';

/** A release of the caller's project by its id (UUID); another project's is as unknown as a missing one. */
export async function findRelease(db: Tx, ctx: Pick<Ctx, 'project'>, id: string): Promise<ReleaseRow> {
  if (!isUuid(id)) throw notFound(RELEASE_NOT_FOUND);
  const r = await db.release.findFirst({ where: { uuid: id.toLowerCase(), projectId: ctx.project.id }, include: RELEASE_INCLUDE });
  if (!r) throw notFound(RELEASE_NOT_FOUND);
  return r;
}

/**
 * Locks the release row for the rest of the transaction: item changes, publishes and schedule changes
 * of one release queue behind each other instead of racing (two publishes, or an item added while the
 * release publishes). Returns the release as it is once locked.
 */
export async function lockRelease(tx: Tx, ctx: Pick<Ctx, 'project'>, id: string): Promise<ReleaseRow> {
  if (!isUuid(id)) throw notFound(RELEASE_NOT_FOUND);
  const locked = await tx.$queryRaw<Array<{ id: number }>>`
    SELECT id FROM releases WHERE uuid = ${id.toLowerCase()}::uuid AND project_id = ${ctx.project.id} FOR UPDATE`;
  if (locked.length === 0) throw notFound(RELEASE_NOT_FOUND);
  return findRelease(tx, ctx, id);
}
