import { randomUUID } from 'node:crypto';
import type { EntryVersion, Prisma } from '../../db/generated/prisma/client.ts';
import { tokenIdOf, type Ctx } from '../../context.ts';
import { notFound } from '../../errors.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import { ENTRY_COLUMNS, mintedRow } from '../store/rows.ts';
import { serializeEntry } from '../reads/serialize.ts';
import type { EntryRow } from '../types.ts';
import { contentEventParams } from '../../events/outbox.ts';
import { passwordNamesSql, withoutKeys, type Snapshot } from '../store/snapshot.ts';
import { publishIfUnchanged } from '../store/version-statement.ts';
import type { PublishResult } from './publish-result.ts';

/**
 * POST /api/{collection}/{uuid}/publish as one writing statement instead of an interactive
 * transaction (BEGIN, row lock, mint, outbox, COMMIT), on PostgreSQL.
 *
 * The entry is read without a lock, with its row version (`xmin`, changed by every UPDATE of the row)
 * and a version id drawn from the sequence; the new version, the entry as the mint leaves it and the
 * published resource are computed from that read. Then one statement (`publishIfUnchanged`, src/entries/store/version-statement.ts) locks the row only if its `xmin`
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

type ReadRow = EntryRow & { xmin: string; password_names: string[]; version_id: number };

const READ = `SELECT ${ENTRY_COLUMNS.text}, e.xmin::text AS xmin, ${passwordNamesSql('e.collection_id')} AS password_names,
    nextval('entry_versions_id_seq')::int AS version_id
  FROM entries e
  WHERE e.uuid = $1::uuid AND e.collection_id = $2::int AND e.project_id = $3::int AND e.deleted_at IS NULL`;

/** The publish, or null when it must go through the transaction (see the module comment); 404 without a live entry. */
export async function publishWithoutLock(ctx: Ctx, collection: CollectionSchema, uuid: string): Promise<PublishResult | null> {
  const db = ctx.services.database;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const [read] = await db.query<ReadRow>(READ, [uuid.toLowerCase(), collection.id, ctx.project.id]);
    if (!read) throw notFound('Entry not found.');
    const { xmin, password_names: passwords, version_id: versionId, ...row } = read;
    const data = (row.data ?? {}) as Record<string, unknown>;
    if (JSON.stringify(data).includes(row.uuid)) return null;
    const now = new Date();
    const fields = withoutKeys(data, passwords);
    const number = row.lastVersionNumber + 1;
    const snapshot: Snapshot = { fields, meta: { locale: row.locale, translation_group_id: row.translationGroupId } };
    const version: EntryVersion = {
      id: versionId,
      uuid: randomUUID(),
      entryId: row.id,
      collectionId: collection.id,
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
    const entry: EntryRow = { ...mintedRow(row, row, fields, versionId, number, now), updatedAt: now };
    const resource = await serializeEntry(ctx, collection, entry, { state: 'published' });
    const event = contentEventParams([
      { event: 'content.published', collection: { id: collection.id, uuid: collection.uuid, slug: collection.slug }, entryUuid: row.uuid, locale: row.locale, entry: resource },
    ]);
    const written = await publishIfUnchanged(ctx, {
      entryId: row.id, collectionId: collection.id, xmin, versionId, versionUuid: version.uuid, number, snapshot, fields, at: now, tokenId: version.createdByTokenId, events: event,
    });
    if (written) {
      const record = { row: version, createdBy: ctx.actor.kind === 'token' ? { id: ctx.actor.tokenId, name: ctx.actor.name } : null, currentVersionId: versionId, collectionId: collection.id };
      return { collection, entry, version: record, resource };
    }
  }
  return null;
}
