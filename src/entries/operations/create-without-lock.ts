import { randomUUID } from 'node:crypto';
import { tokenIdOf, type Ctx } from '../../context.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import type { ErrorBag } from '../../errors.ts';
import { serializeEntries } from '../reads/serialize.ts';
import { uniqueFields, validateEntryInputs, type EntryWriteInput } from '../values/validate.ts';
import type { EntryResource, EntryRow } from '../types.ts';
import { contentEventParams } from '../../events/outbox.ts';
import { createWithEvents, createWithEventsIfAccepted } from '../store/version-statement.ts';
import { recheckUnderLock } from '../values/unique-recheck.ts';
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
 *
 * A collection with unique fields (a slug) takes the same path with the check moved after the write:
 * the statement runs in a transaction, which then takes the write-scope lock and looks for the values
 * among the other live entries (src/entries/values/unique-recheck.ts), committing if none has one.
 * The lock is held for that lookup and the commit only, not for the validation, the insert, the
 * resources and the events, so concurrent creates of one collection no longer queue behind each
 * other's whole write. A value that is taken rolls the write back and the request runs the locked
 * transaction instead (null), which names the item and field as it always did; so does a slug
 * generated from another field, whose free suffix that lookup picks.
 */

/** Whether creates and bulk updates of the collection may take the paths that need no lock (./update-without-lock.ts too). */
export function canWriteWithoutLock(ctx: Ctx, collection: CollectionSchema): boolean {
  const db = ctx.services.database;
  return db.kind === 'postgres' && !collection.isSingleton && (uniqueFields(collection).length === 0 || db.transaction !== undefined);
}

const DRAW_IDS = `SELECT nextval('entries_id_seq')::int AS id, CASE WHEN p THEN nextval('entry_versions_id_seq')::int END AS version_id
  FROM unnest($1::boolean[]) WITH ORDINALITY AS x(p, n) ORDER BY n`;

interface CreateItem extends EntryWriteInput {
  index: number;
}

/**
 * Validates and creates the items; problems go to `bag` (the caller throws, before anything is
 * written). Each created row emits createdEvents, as the transactional path does. Null when a unique
 * value turned out to be taken: nothing was written, and the caller runs the locked transaction.
 */
export async function createWithoutLock(
  ctx: Ctx,
  collection: CollectionSchema,
  items: CreateItem[],
  opts: { bag: ErrorBag; keyPrefix: (i: number) => string; timestamps?: boolean },
): Promise<EntryResource[] | null> {
  const uniques = uniqueFields(collection).length > 0;
  const validated = await validateEntryInputs(ctx, collection, items, 'create', {
    db: ctx.db,
    bag: opts.bag,
    keyPrefix: opts.keyPrefix,
    beforeTransaction: true,
  });
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
  const create = { collectionId: collection.id, rows: input, at: now, tokenId: tokenIdOf(ctx), events: ev };
  if (!uniques) {
    await createWithEvents(ctx, create);
    return resources;
  }
  const accept = recheckUnderLock(collection, validated.map((v, i) => ({ id: rows[i].id, locale: v.locale, data: v.data })));
  const written = await createWithEventsIfAccepted(ctx, create, accept);
  return written ? resources : null;
}
