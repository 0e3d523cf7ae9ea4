import { randomUUID } from 'node:crypto';
import { tokenIdOf, type Ctx } from '../../context.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import type { ErrorBag } from '../../errors.ts';
import { serializeEntries } from '../reads/serialize.ts';
import { uniqueFields, validateEntryInputs, type EntryWriteInput } from '../values/validate.ts';
import type { EntryResource, EntryRow } from '../types.ts';
import { contentEventParams } from '../../events/outbox.ts';
import { createWithEvents } from '../store/version-statement.ts';
import { createdEvents, eventFactory } from '../../events/entry-events.ts';

/**
 * Create (single, src/entries/operations/entry.ts, and bulk, src/entries/operations/bulk.ts) as one statement instead
 * of an interactive transaction, for collections whose writes need no lock (no unique field, not a
 * singleton) on PostgreSQL.
 *
 * The transactional create costs BEGIN, the INSERT, the outbox insert and COMMIT, each also a pass
 * through Prisma. Here the entry ids (and version ids of the items published on create) are drawn from
 * their sequences first, so the rows, and with them the resources the response and the events carry,
 * are known before anything is written; then one statement inserts the entries, their version 1 and
 * every event (`createWithEvents`, src/entries/store/version-statement.ts), which commit together or
 * not at all. Validation and relation hydration read committed rows as they would inside the
 * transaction: new rows cannot be referenced by the request itself (references must exist before it),
 * and without a unique or singleton rule there is nothing a concurrent write could make false in
 * between. Ids drawn by a request that then fails are skipped, as a rolled-back transaction skips
 * them.
 */

export function canCreateWithoutLock(ctx: Ctx, collection: CollectionSchema): boolean {
  return ctx.services.database.kind === 'postgres' && !collection.isSingleton && uniqueFields(collection).length === 0;
}

const DRAW_IDS = `SELECT nextval('entries_id_seq')::int AS id, CASE WHEN p THEN nextval('entry_versions_id_seq')::int END AS version_id
  FROM unnest($1::boolean[]) WITH ORDINALITY AS x(p, n) ORDER BY n`;

interface CreateItem extends EntryWriteInput {
  index: number;
}

/**
 * Validates and creates the items; problems go to `bag` (the caller throws, before anything is
 * written). Each created row emits createdEvents, as the transactional path does.
 */
export async function createWithoutLock(
  ctx: Ctx,
  collection: CollectionSchema,
  items: CreateItem[],
  opts: { bag: ErrorBag; keyPrefix: (i: number) => string; timestamps?: boolean },
): Promise<EntryResource[]> {
  const validated = await validateEntryInputs(ctx, collection, items, 'create', { db: ctx.db, bag: opts.bag, keyPrefix: opts.keyPrefix });
  opts.bag.throwIfAny();
  const db = ctx.services.database;
  const ids = await db.query<{ id: number; version_id: number | null }>(DRAW_IDS, [validated.map((v) => v.state === 'published')], { name: 'cms_bulk_draw_ids' });
  const now = new Date();
  const rows: EntryRow[] = validated.map((item, i) => {
    const versionId = ids[i].version_id;
    const published = versionId !== null;
    return {
      id: ids[i].id,
      uuid: randomUUID(),
      projectId: ctx.project.id,
      collectionId: collection.id,
      locale: item.locale,
      translationGroupId: null,
      state: published ? 'published' : 'draft',
      data: item.data as EntryRow['data'],
      // Not shown by the draft view the response and the events use; the statement stores it without passwords.
      publishedData: null,
      publishedVersionId: versionId,
      publishedVersionNumber: published ? 1 : null,
      lastVersionNumber: published ? 1 : 0,
      isDraftDirty: !published,
      publishedAt: published ? now : null,
      publishedUpdatedAt: published ? now : null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
  });
  const resources = await serializeEntries(ctx, collection, rows, { state: 'draft', timestamps: opts.timestamps });
  const event = eventFactory(collection);
  const ev = contentEventParams(rows.flatMap((row, i) => createdEvents(event, row, resources[i], row.publishedVersionId !== null)));
  const input = rows.map((r) => ({ id: r.id, uuid: r.uuid, locale: r.locale, data: r.data, version_id: r.publishedVersionId }));
  await createWithEvents(ctx, { collectionId: collection.id, rows: input, at: now, tokenId: tokenIdOf(ctx), events: ev });
  return resources;
}
