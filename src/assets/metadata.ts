import { z } from 'zod';
import type { Asset } from '../db/generated/prisma/client.ts';
import { authorize, type Ctx } from '../context.ts';
import { validationFailed, type FieldErrors } from '../errors.ts';
import { isUuid } from '../uuid.ts';

/** The most items one bulk metadata edit takes (docs/assets.md). */
export const BULK_METADATA_MAX = 50;

/** Describing fields a client may edit; width and height come from the image and are not among them. */
export const EDITABLE_METADATA = ['alt_text', 'title', 'caption', 'description', 'author', 'copyright'] as const;

const text = (max: number) => z.string().max(max, `Must be at most ${max} characters.`).nullable().optional();

const itemSchema = z
  .object({
    uuid: z.string().refine(isUuid, 'The uuid must be a UUID.'),
    alt_text: text(1000),
    title: text(255),
    caption: text(2000),
    description: text(5000),
    author: text(255),
    copyright: text(255),
  })
  .strict();

/** `{ items: [{ uuid, alt_text?, ... }] }`; a key sent as null is removed, a key not sent is kept. */
export const bulkMetadataBody = z.object({
  items: z.array(itemSchema).min(1, 'Send at least one item.').max(BULK_METADATA_MAX, `Send at most ${BULK_METADATA_MAX} items at once.`),
});
export type BulkMetadataInput = z.output<typeof bulkMetadataBody>;

export const metadataUpdatedMessage = (n: number) => `Metadata of ${n} file${n === 1 ? '' : 's'} updated.`;

/**
 * Merges the sent keys into each asset's metadata, all items in one transaction (any unknown uuid
 * fails them all). The merge happens in the UPDATE itself, so concurrent edits of different keys of
 * one asset both stand.
 */
export async function bulkUpdateMetadata(ctx: Ctx, input: BulkMetadataInput): Promise<Asset[]> {
  authorize(ctx, 'update');
  const uuids = input.items.map((i) => i.uuid.toLowerCase());
  const errors: FieldErrors = {};
  uuids.forEach((u, n) => {
    if (uuids.indexOf(u) !== n) errors[`items.${n}.uuid`] = ['This asset appears more than once in the request.'];
  });
  if (Object.keys(errors).length) throw validationFailed(errors);

  const updated = await ctx.db.$transaction(async (tx) => {
    const found = await tx.asset.findMany({ where: { projectId: ctx.project.id, uuid: { in: uuids }, deletedAt: null }, select: { uuid: true } });
    const known = new Set(found.map((a) => a.uuid));
    uuids.forEach((u, n) => {
      if (!known.has(u)) errors[`items.${n}.uuid`] = ['Asset not found.'];
    });
    if (Object.keys(errors).length) throw validationFailed(errors);

    for (const [n, item] of input.items.entries()) {
      const set: Record<string, string> = {};
      const unset: string[] = [];
      for (const key of EDITABLE_METADATA) {
        const value = item[key];
        if (value === null) unset.push(key);
        else if (value !== undefined) set[key] = value;
      }
      await tx.$executeRaw`
        UPDATE assets
           SET metadata = NULLIF((COALESCE(metadata, '{}'::jsonb) || ${JSON.stringify(set)}::jsonb) - ${unset}::text[], '{}'::jsonb),
               updated_at = now()
         WHERE project_id = ${ctx.project.id} AND uuid = ${uuids[n]}::uuid`;
    }
    const rows = await tx.asset.findMany({ where: { projectId: ctx.project.id, uuid: { in: uuids } } });
    const byUuid = new Map(rows.map((r) => [r.uuid, r]));
    return uuids.map((u) => byUuid.get(u)!);
  });
  ctx.services.assetsChanged?.(uuids);
  return updated;
}
