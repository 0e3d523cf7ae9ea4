import { Prisma } from '../../db/client.ts';
import { authorize, type Ctx } from '../../context.ts';
import { notFound, validationFailed } from '../../errors.ts';
import { collectionForRequest } from '../../collections/schema-cache.ts';
import { emitEntryEvent, TX_OPTIONS, txCtx } from '../operations/entry.ts';
import { sameCollection, selectEntries } from '../store/rows.ts';
import { serializeEntry } from '../reads/serialize.ts';
import { isUuid } from '../types.ts';

const KEY = 'translation_entry_uuid';

/**
 * POST /api/{collection}/{uuid}/link-translation (docs/entries.md). Puts the target entry (and the
 * translations it already has) into the source entry's translation group; a group may hold one entry
 * per locale. 404 for a missing collection or source; 422 when the target is missing, outside this
 * collection, the source itself, in the source's locale, or would give a group two entries of a locale.
 * Emits `content.updated` for every entry whose group changed.
 */
export async function linkTranslation(ctx: Ctx, slug: string, uuid: string, body: { translation_entry_uuid?: unknown }): Promise<{ message: string; translation_group_id: number }> {
  authorize(ctx, 'update');
  const collection = await collectionForRequest(ctx, slug);
  if (!isUuid(uuid)) throw notFound('Entry not found.');
  const targetUuid = body.translation_entry_uuid;
  if (targetUuid === undefined || targetUuid === null || targetUuid === '') throw validationFailed({ [KEY]: ['The translation entry uuid field is required.'] });
  if (!isUuid(targetUuid)) throw validationFailed({ [KEY]: ['The translation entry uuid must be a valid UUID.'] });

  return ctx.db.$transaction(async (tx) => {
    const tctx = txCtx(ctx, tx);
    const pair = await selectEntries(
      tx,
      Prisma.sql`${sameCollection('e.collection_id', collection.id)} AND e.project_id = ${ctx.project.id} AND e.deleted_at IS NULL AND e.uuid = ANY(${[uuid.toLowerCase(), targetUuid.toLowerCase()]}::uuid[])`,
      Prisma.sql`ORDER BY e.id FOR UPDATE`,
    );
    const source = pair.find((r) => r.uuid === uuid.toLowerCase() && r.collectionId === collection.id);
    if (!source) throw notFound('Entry not found.');
    const target = pair.find((r) => r.uuid === targetUuid.toLowerCase());
    if (!target || target.collectionId !== collection.id) throw validationFailed({ [KEY]: ['The selected translation entry does not exist in this collection.'] });
    if (target.id === source.id) throw validationFailed({ [KEY]: ['An entry cannot be linked to itself.'] });
    if (target.locale === source.locale) throw validationFailed({ [KEY]: ['The translation entry must have a different locale than the source entry.'] });

    const groups = [source.translationGroupId, target.translationGroupId].filter((g): g is number => g !== null);
    const members = groups.length
      ? await selectEntries(tx, Prisma.sql`${sameCollection('e.collection_id', collection.id)} AND e.deleted_at IS NULL AND e.translation_group_id = ANY(${groups}::int[])`, Prisma.sql`ORDER BY e.id FOR UPDATE`)
      : [];
    const all = new Map([...members, source, target].map((r) => [r.id, r]));
    const seen = new Map<string, number>();
    for (const r of all.values()) {
      const other = seen.get(r.locale);
      if (other !== undefined && other !== r.id) {
        throw validationFailed({ [KEY]: [`The translation group already has an entry in locale '${r.locale}'.`] });
      }
      seen.set(r.locale, r.id);
    }

    const groupId = source.translationGroupId ?? target.translationGroupId ?? (await tx.translationGroup.create({ data: { projectId: ctx.project.id } })).id;
    const moving = [...all.values()].filter((r) => r.translationGroupId !== groupId).map((r) => r.id);
    if (moving.length) {
      await tx.$executeRaw(Prisma.sql`UPDATE entries SET translation_group_id = ${groupId}, updated_at = now() WHERE ${sameCollection('collection_id', collection.id)} AND id = ANY(${moving}::int[])`);
      const changed = await selectEntries(tx, Prisma.sql`${sameCollection('e.collection_id', collection.id)} AND e.id = ANY(${moving}::int[])`, Prisma.sql`ORDER BY e.id`);
      for (const row of changed) {
        const entry = await serializeEntry(tctx, collection, row, { state: 'draft' });
        await emitEntryEvent(tx, tctx, collection, 'content.updated', row, entry);
      }
    }
    return { message: 'Translation linked successfully.', translation_group_id: groupId };
  }, TX_OPTIONS);
}
