import { randomUUID } from 'node:crypto';
import type { EntryVersion, Prisma } from '../db/generated/prisma/client.ts';
import { tokenIdOf, type Ctx } from '../context.ts';
import { notFound } from '../errors.ts';
import type { CollectionSchema } from '../collections/model.ts';
import { ENTRY_COLUMNS } from '../content/rows.ts';
import { serializeEntry } from '../content/serialize.ts';
import type { EntryRow } from '../content/types.ts';
import { OUTBOX_CHANNEL } from '../events/port.ts';
import { contentEventParams, contentEventsInsertSql, outboxWritten } from '../events/outbox.ts';
import { passwordNamesSql, RETENTION, withoutKeys, type Snapshot } from './mint.ts';
import type { VersionRecord } from './serialize.ts';
import type { EntryResource } from '../content/types.ts';

/**
 * POST /api/{collection}/{uuid}/publish as one writing statement instead of an interactive
 * transaction (BEGIN, row lock, mint, outbox, COMMIT), on PostgreSQL.
 *
 * The entry is read without a lock, with its row version (`xmin`, changed by every UPDATE of the row)
 * and a version id drawn from the sequence; the new version, the entry as the mint leaves it and the
 * published resource are computed from that read. Then one statement locks the row only if its `xmin`
 * is still the one read, inserts the version, prunes by plan, moves the pointer and inserts the
 * `content.published` event: all of it or (another write got there first) none of it, in which case
 * the publish starts over from a fresh read. Version numbers stay gapless and never reused, as under
 * the lock: a number is written only on top of the row it was computed from. A version id drawn by an
 * attempt that lost is skipped, as a rolled-back transaction skips it.
 *
 * An entry whose draft names its own UUID goes through the transaction (its published resource would
 * hydrate itself as the transaction sees it), as does anything that keeps losing the race.
 */

const ATTEMPTS = 3;

/** What publishEntry returns (its PublishResult; declared here too, as publish.ts imports this module). */
interface Published {
  collection: CollectionSchema;
  entry: EntryRow;
  version: VersionRecord;
  resource: EntryResource;
}

type ReadRow = EntryRow & { xmin: string; password_names: string[]; version_id: number };

const READ = `SELECT ${ENTRY_COLUMNS.text}, e.xmin::text AS xmin, ${passwordNamesSql('e.collection_id')} AS password_names,
    nextval('entry_versions_id_seq')::int AS version_id
  FROM entries e
  WHERE e.uuid = $1::uuid AND e.collection_id + 0 = $2::int AND e.project_id = $3::int AND e.deleted_at IS NULL`;

/**
 * $1 entry id, $2 xmin, $3 version id, $4 version uuid, $5 number, $6 snapshot, $7 published fields,
 * $8 time, $9 token, $10 retention floor, $11-$15 the event (project, source, rows, entries, channel).
 */
const PUBLISH_IF_UNCHANGED = `WITH l AS (
    SELECT id, locale, translation_group_id FROM entries WHERE id = $1::int AND xmin = $2::text::xid AND deleted_at IS NULL FOR UPDATE
  ),
  v AS (
    INSERT INTO entry_versions (id, uuid, entry_id, version_number, locale, translation_group_id, snapshot, published_at, created_at, updated_at, created_by_token_id)
    SELECT $3::int, $4::uuid, l.id, $5::int, l.locale, l.translation_group_id, $6::jsonb, $8::timestamptz, $8::timestamptz, $8::timestamptz, $9::int FROM l
    RETURNING id, entry_id
  ),
  pruned AS (
    DELETE FROM entry_versions ev USING l WHERE ev.entry_id = l.id AND ev.version_number <= $10::int
  ),
  e AS (
    UPDATE entries AS t SET state = 'published', published_data = $7::jsonb, published_version_id = v.id, published_version_number = $5::int,
      last_version_number = $5::int, is_draft_dirty = false, published_at = COALESCE(t.published_at, $8::timestamptz), updated_at = $8::timestamptz
    FROM v WHERE t.id = v.entry_id
    RETURNING t.id
  ),
  inserted AS (
    ${contentEventsInsertSql({ project: '$11::int', source: '$12::text', rows: '$13', entries: '$14' }, 'EXISTS (SELECT 1 FROM e)')}
  )
  SELECT pg_notify($15::text, '') FROM e`;

/** The publish, or null when it must go through the transaction (see the module comment); 404 without a live entry. */
export async function publishWithoutLock(ctx: Ctx, collection: CollectionSchema, uuid: string): Promise<Published | null> {
  const db = ctx.services.database;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const [read] = await db.query<ReadRow>(READ, [uuid.toLowerCase(), collection.id, ctx.project.id], { name: 'cms_entry_for_publish' });
    if (!read) throw notFound('Entry not found.');
    const { xmin, password_names: passwords, version_id: versionId, ...row } = read;
    const data = (row.data ?? {}) as Record<string, unknown>;
    if (JSON.stringify(data).includes(row.uuid)) return null;
    const now = new Date();
    const fields = withoutKeys(data, passwords);
    const number = row.lastVersionNumber + 1;
    const snapshot: Snapshot = { fields, meta: { locale: row.locale, translation_group_id: row.translationGroupId } };
    const keep = RETENTION[ctx.project.plan];
    const version: EntryVersion = {
      id: versionId,
      uuid: randomUUID(),
      entryId: row.id,
      versionNumber: number,
      label: null,
      description: null,
      locale: row.locale,
      translationGroupId: row.translationGroupId,
      snapshot: snapshot as unknown as Prisma.JsonValue,
      publishedAt: now,
      createdAt: now,
      updatedAt: now,
      createdByTokenId: tokenIdOf(ctx),
    };
    // What the mint leaves in the row; published_updated_at is the trigger's (updated_at, as the pointer moves).
    const entry: EntryRow = {
      ...row,
      state: 'published',
      publishedData: fields as EntryRow['publishedData'],
      publishedVersionId: versionId,
      publishedVersionNumber: number,
      lastVersionNumber: number,
      isDraftDirty: false,
      publishedAt: row.publishedAt ?? now,
      publishedUpdatedAt: now,
      updatedAt: now,
    };
    const resource = await serializeEntry(ctx, collection, entry, { state: 'published' });
    const event = contentEventParams([
      { event: 'content.published', collection: { id: collection.id, uuid: collection.uuid, slug: collection.slug }, entryUuid: row.uuid, locale: row.locale, entry: resource },
    ]);
    const written = await db.query(
      PUBLISH_IF_UNCHANGED,
      [
        row.id, xmin, versionId, version.uuid, number, JSON.stringify(snapshot), JSON.stringify(fields), now.toISOString(), version.createdByTokenId,
        keep === null ? 0 : Math.max(0, number - keep), ctx.project.id, ctx.source, event.rows, event.entries, OUTBOX_CHANNEL,
      ],
      { name: 'cms_publish_if_unchanged' },
    );
    if (written.length === 1) {
      outboxWritten(ctx);
      const record = { row: version, createdBy: ctx.actor.kind === 'token' ? { id: ctx.actor.tokenId, name: ctx.actor.name } : null, currentVersionId: versionId, collectionId: collection.id };
      return { collection, entry, version: record, resource };
    }
  }
  return null;
}
