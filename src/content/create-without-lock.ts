import { randomUUID } from 'node:crypto';
import { tokenIdOf, type Ctx } from '../context.ts';
import type { CollectionSchema } from '../collections/model.ts';
import type { ErrorBag } from '../errors.ts';
import { serializeEntries } from './serialize.ts';
import { uniqueFields, validateEntryInputs, type EntryWriteInput } from './validate.ts';
import type { EntryResource, EntryRow } from './types.ts';
import { passwordNamesSql } from '../versions/mint.ts';
import { OUTBOX_CHANNEL } from '../events/port.ts';
import { contentEventParams, contentEventsInsertSql, outboxWritten } from '../events/outbox.ts';
import { createdEvents, eventFactory } from '../events/entry-events.ts';

/**
 * Create (single, src/content/operations.ts, and bulk, src/bulk/operations.ts) as one statement instead
 * of an interactive transaction, for collections whose writes need no lock (no unique field, not a
 * singleton) on PostgreSQL.
 *
 * The transactional create costs BEGIN, the INSERT, the outbox insert and COMMIT, each also a pass
 * through Prisma. Here the entry ids (and version ids of the items published on create) are drawn
 * from their sequences first, so the rows, and with them the resources the response and the events
 * carry, are known before anything is written; then one statement inserts the entries, their
 * version 1 and every event, which commit together or not at all. Validation and relation hydration
 * read committed rows as they would inside the transaction: new rows cannot be referenced by the
 * request itself (references must exist before it), and without a unique or singleton rule there is
 * nothing a concurrent write could make false in between. Ids drawn by a request that then fails
 * are skipped, as a rolled-back transaction skips them.
 */

export function canCreateWithoutLock(ctx: Ctx, collection: CollectionSchema): boolean {
  return ctx.services.database.kind === 'postgres' && !collection.isSingleton && uniqueFields(collection).length === 0;
}

const DRAW_IDS = `SELECT nextval('entries_id_seq')::int AS id, CASE WHEN p THEN nextval('entry_versions_id_seq')::int END AS version_id
  FROM unnest($1::boolean[]) WITH ORDINALITY AS x(p, n) ORDER BY n`;

/**
 * $1 project, $2 collection, $3 the rows, $4 the time, $5 the acting token, $6-$7 the events, $8 the
 * outbox channel. What `insertPublishing` (src/content/persist.ts) writes, with the ids and times given.
 */
const INSERT = `WITH pw AS (
    SELECT ${passwordNamesSql('$2::int')} AS names
  ),
  input AS (
    SELECT r.id, r.uuid, r.locale, r.data, r.version_id, CASE WHEN r.version_id IS NOT NULL THEN r.data - pw.names END AS published
    FROM jsonb_to_recordset($3::jsonb) AS r(id int, uuid uuid, locale text, data jsonb, version_id int), pw
  ),
  e AS (
    INSERT INTO entries AS e (id, uuid, project_id, collection_id, locale, translation_group_id, data, is_draft_dirty, created_at, updated_at,
      state, published_data, published_version_id, published_version_number, last_version_number, published_at)
    SELECT i.id, i.uuid, $1::int, $2::int, i.locale, NULL, i.data, i.version_id IS NULL, $4::timestamptz, $4::timestamptz,
      (CASE WHEN i.version_id IS NULL THEN 'draft' ELSE 'published' END)::"EntryState", i.published, i.version_id,
      CASE WHEN i.version_id IS NOT NULL THEN 1 END, CASE WHEN i.version_id IS NULL THEN 0 ELSE 1 END,
      CASE WHEN i.version_id IS NOT NULL THEN $4::timestamptz END
    FROM input i
    ORDER BY i.id
    RETURNING e.id
  ),
  v AS (
    INSERT INTO entry_versions (id, uuid, entry_id, version_number, locale, translation_group_id, snapshot, published_at, created_at, updated_at, created_by_token_id)
    SELECT i.version_id, gen_random_uuid(), i.id, 1, i.locale, NULL,
      jsonb_build_object('fields', i.published, 'meta', jsonb_build_object('locale', i.locale, 'translation_group_id', NULL)),
      $4::timestamptz, $4::timestamptz, $4::timestamptz, $5::int
    FROM input i JOIN e ON e.id = i.id WHERE i.version_id IS NOT NULL
  ),
  inserted AS (
    ${contentEventsInsertSql({ project: '$1::int', source: '$9::text', rows: '$6', entries: '$7' }, 'EXISTS (SELECT 1 FROM e)')}
  )
  SELECT pg_notify($8::text, '') WHERE EXISTS (SELECT 1 FROM inserted)`;

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
  await db.query(
    INSERT,
    [ctx.project.id, collection.id, JSON.stringify(input), now.toISOString(), tokenIdOf(ctx), ev.rows, ev.entries, OUTBOX_CHANNEL, ctx.source],
    { name: 'cms_bulk_create_without_lock' },
  );
  outboxWritten(ctx);
  return resources;
}
