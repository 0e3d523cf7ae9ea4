import type { Tx } from '../../db/client.ts';
import type { Ctx } from '../../context.ts';
import type { ErrorBag } from '../../errors.ts';
import { label, type PendingRef } from './common.ts';

const describe = (r: PendingRef) => (r.uuid ? `'${r.uuid}'` : `#${r.id}`);

/**
 * Resolves every queued media and relation reference of a batch with one query per kind, scoped to the
 * project (and, for relations, to the field's target collection). Found references are rewritten to
 * the target's UUID in place; missing, soft-deleted or foreign ones are 422s on their key.
 */
export async function resolveReferences(ctx: Ctx, db: Tx, refs: PendingRef[], bag: ErrorBag): Promise<void> {
  const media = refs.filter((r) => r.kind === 'media');
  const relations = refs.filter((r) => r.kind === 'relation');
  const projectId = ctx.project.id;
  const where = (list: PendingRef[]) => {
    const uuids = [...new Set(list.flatMap((r) => (r.uuid ? [r.uuid] : [])))];
    const ids = [...new Set(list.flatMap((r) => (r.id ? [r.id] : [])))];
    return { projectId, deletedAt: null, OR: [...(uuids.length ? [{ uuid: { in: uuids } }] : []), ...(ids.length ? [{ id: { in: ids } }] : [])] };
  };

  if (media.length) {
    const assets = await db.asset.findMany({ where: where(media), select: { id: true, uuid: true } });
    const byUuid = new Map(assets.map((a) => [a.uuid, a]));
    const byId = new Map(assets.map((a) => [a.id, a]));
    for (const r of media) {
      const a = r.uuid ? byUuid.get(r.uuid) : byId.get(r.id!);
      if (a) r.assign(a.uuid);
      else bag.add(r.key, `The selected ${label(r.field)} is invalid: asset ${describe(r)} does not exist in this project.`);
    }
  }

  if (relations.length) {
    const entries = await db.entry.findMany({ where: where(relations), select: { id: true, uuid: true, collectionId: true } });
    const byUuid = new Map(entries.map((e) => [e.uuid, e]));
    const byId = new Map(entries.map((e) => [e.id, e]));
    for (const r of relations) {
      const e = r.uuid ? byUuid.get(r.uuid) : byId.get(r.id!);
      const target = r.field.options.relation?.collection;
      if (e && (typeof target !== 'number' || e.collectionId === target)) r.assign(e.uuid);
      else bag.add(r.key, `The selected ${label(r.field)} is invalid: entry ${describe(r)} does not exist in the related collection.`);
    }
  }
}
