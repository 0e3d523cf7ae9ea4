import { randomUUID } from 'node:crypto';
import { tokenIdOf, type Ctx } from '../../context.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import type { ErrorBag } from '../../errors.ts';
import { Prisma } from '../../db/client.ts';
import { mintedRow, sameCollection } from '../store/rows.ts';
import { passwordNamesSql, withoutKeys, type Snapshot } from '../store/snapshot.ts';
import { readColumns, statementName, takeLinked, type RowWithLinks } from '../reads/read-rows.ts';
import { contentLoaders } from '../reads/loaders.ts';
import { retentionFloor } from '../store/version-statement.ts';
import { updateIfUnchanged, updateIfUnchangedAndAccepted, type UnlockedUpdateRow } from '../store/update-statement.ts';
import { isPublished } from '../store/bulk-persist.ts';
import { serializeEntries } from '../reads/serialize.ts';
import { uniqueFields, validateEntryInputs } from '../values/validate.ts';
import { recheckUnderLock } from '../values/unique-recheck.ts';
import type { EntryResource, EntryRow } from '../types.ts';
import { contentEventParams } from '../../events/outbox.ts';
import { eventFactory } from '../../events/entry-events.ts';
import { itemKey, type BulkUpdateItem } from './bulk-input.ts';

/**
 * PATCH /api/bulk/{collection}/entries as one writing statement instead of an interactive
 * transaction, on PostgreSQL for collections that are not singletons (canWriteWithoutLock). An update
 * that publishes is the editor's "save and publish". With unique fields the statement runs in a short
 * transaction that then takes the write-scope lock and rechecks the values (recheckUnderLock), as a
 * create does, so writers of one collection wait for each other only for the recheck and the commit.
 *
 * The transaction costs BEGIN, the row locks, the draft UPDATE, the relation targets, the mint's lock
 * and its statement, the targets again, the outbox insert and COMMIT: nine round trips after
 * authentication, and the row written twice (every index of the collection and the content triggers
 * twice). Here the rows are read without a lock, with their row versions (`xmin`) and, for the
 * items that publish, version ids drawn from the sequence; validation, the new rows, the resources and
 * the events are computed from that read as the transaction would compute them from its locked rows;
 * then one statement (`updateIfUnchanged`, src/entries/store/update-statement.ts) writes every row, the
 * versions and the events if no row has changed since it was read, and nothing otherwise, in which
 * case the update starts over from a fresh read. Version numbers stay gapless: a number is written
 * only on top of the row it was computed from.
 *
 * Not taken (null: the caller runs the transaction) for an item that unpublishes, or an item whose
 * draft names an entry of the request (its resource would show the target as the transaction sees
 * it, written or published by this very request), or when other writes keep winning the race.
 */

const ATTEMPTS = 3;

type ReadRow = EntryRow & { xmin: string; version_id: number | null; password_names: string[] };

const PASSWORD_NAMES = Prisma.raw(passwordNamesSql('e.collection_id'));

/**
 * The requested UUIDs as rows `u(uuid, publish, n)`. One item (the editor's save or publish, the
 * common case) is a row of scalar parameters rather than arrays: PostgreSQL estimates an array of
 * parameters at ten elements in the statement's generic plan but at its real length once planned with
 * the values, so with arrays every execution was planned again (a custom plan, most of the read's
 * CPU time); with scalars both plans cost the same and the connection's generic plan is reused.
 */
function requestedRows(items: BulkUpdateItem[]): Prisma.Sql {
  if (items.length === 1) {
    return Prisma.sql`(SELECT ${items[0].uuid}::uuid AS uuid, ${items[0].state === 'published'}::boolean AS publish, 1::bigint AS n) AS u`;
  }
  return Prisma.sql`unnest(${items.map((i) => i.uuid)}::uuid[], ${items.map((i) => i.state === 'published')}::boolean[]) WITH ORDINALITY AS u(uuid, publish, n)`;
}

/**
 * The rows with their row versions, a version id for each item that publishes, the password names
 * where needed, and (as a read does, src/entries/reads/read-rows.ts) the entries their relations link
 * now: a patch that leaves the relations alone renders both views without another statement.
 */
function readStatement(ctx: Ctx, collection: CollectionSchema, items: BulkUpdateItem[]): { statement: Prisma.Sql; links: string[] } {
  const { columns, links } = readColumns(ctx, collection, 'draft');
  const statement = Prisma.sql`SELECT ${columns}, e.xmin::text AS xmin,
      CASE WHEN u.publish THEN nextval('entry_versions_id_seq')::int END AS version_id,
      CASE WHEN u.publish THEN ${PASSWORD_NAMES} ELSE '{}'::text[] END AS password_names
    FROM ${requestedRows(items)}
    JOIN entries e ON e.uuid = u.uuid AND ${sameCollection('e.collection_id', collection.id)} AND e.project_id = ${ctx.project.id} AND e.deleted_at IS NULL
    ORDER BY u.n`;
  return { statement, links };
}

/** Whether a write gives the row other values of its unique fields, or another locale (values are unique per locale). */
function movesUniqueValues(collection: CollectionSchema, before: EntryRow, locale: string, data: Record<string, unknown>): boolean {
  if (before.locale !== locale) return true;
  const old = before.data as Record<string, unknown>;
  return uniqueFields(collection).some((f) => JSON.stringify(old[f.name] ?? null) !== JSON.stringify(data[f.name] ?? null));
}

/**
 * The update, or null when it must go through the transaction (see the module comment). Unknown
 * UUIDs and invalid values go to `bag` exactly as the transaction reports them; the caller throws.
 */
export async function bulkUpdateWithoutLock(
  ctx: Ctx,
  collection: CollectionSchema,
  items: BulkUpdateItem[],
  opts: { bag: ErrorBag; timestamps?: boolean },
): Promise<EntryResource[] | null> {
  const db = ctx.services.database;
  const requested = items.map((i) => i.uuid);
  // Unique values are checked again after the write, under the write-scope lock (recheckUnderLock).
  const uniques = uniqueFields(collection).length > 0;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const { statement, links } = readStatement(ctx, collection, items);
    const withLinks = await db.query<ReadRow & RowWithLinks>(statement.text, statement.values, { name: statementName(statement.text) });
    const loader = contentLoaders(ctx).entryByUuid;
    // A retry reads the targets again: primed values stay unless cleared.
    if (attempt > 0) loader.clearAll();
    const read = takeLinked(withLinks, links, 'draft', (u, r) => loader.prime(u, r)) as ReadRow[];
    const byUuid = new Map(read.map((r) => [r.uuid, r]));
    if (items.some((i) => i.state === 'draft' && byUuid.has(i.uuid) && isPublished(byUuid.get(i.uuid)!))) return null;
    const missing = items.filter((i) => !byUuid.has(i.uuid));
    for (const m of missing) {
      opts.bag.add(`${itemKey(m.index)}.uuid`, `The selected ${itemKey(m.index)}.uuid is invalid: no entry with this UUID exists in this collection.`);
    }
    const found = items.filter((i) => byUuid.has(i.uuid));
    const validated = await validateEntryInputs(
      ctx,
      collection,
      found.map((i) => ({ data: i.data, locale: i.locale, existing: byUuid.get(i.uuid) })),
      'patch',
      { db: ctx.db, bag: opts.bag, keyPrefix: (i) => `${itemKey(found[i].index)}.`, beforeTransaction: uniques },
    );
    opts.bag.throwIfAny(missing.length ? `Entries not found in this collection: ${missing.map((m) => m.uuid).join(', ')}.` : undefined);
    if (
      validated.some((v) => {
        const json = JSON.stringify(v.data);
        return requested.some((uuid) => json.includes(uuid));
      })
    )
      return null;

    const now = new Date();
    const tokenId = tokenIdOf(ctx);
    const rows: UnlockedUpdateRow[] = [];
    const updated: EntryRow[] = [];
    const final: EntryRow[] = [];
    const published: EntryRow[] = [];
    found.forEach((item, i) => {
      const { xmin, version_id: versionId, password_names: passwords, ...row } = byUuid.get(item.uuid)!;
      const data = validated[i].data as EntryRow['data'];
      const saved: EntryRow = { ...row, data, locale: validated[i].locale, isDraftDirty: true, updatedAt: now };
      updated.push(saved);
      if (item.state !== 'published' || versionId === null) {
        final.push(saved);
        rows.push({ entry_id: row.id, xmin, data, locale: saved.locale, version_id: null, version_uuid: null, number: null, snapshot: null, fields: null, floor: null });
        return;
      }
      const fields = withoutKeys(validated[i].data, passwords);
      const number = row.lastVersionNumber + 1;
      const snapshot: Snapshot = { fields, meta: { locale: saved.locale, translation_group_id: row.translationGroupId } };
      const minted = mintedRow(saved, row, fields, versionId, number, now);
      final.push(minted);
      published.push(minted);
      rows.push({
        entry_id: row.id, xmin, data, locale: saved.locale, version_id: versionId, version_uuid: randomUUID(), number, snapshot, fields,
        floor: retentionFloor(ctx.project.plan, number),
      });
    });

    const view = { state: 'draft', timestamps: opts.timestamps } as const;
    const updatedResources = await serializeEntries(ctx, collection, updated, view);
    const resources = published.length ? await serializeEntries(ctx, collection, final, view) : updatedResources;
    // Publish events carry the published view, as POST .../publish sends it.
    const publishedResources = new Map((await serializeEntries(ctx, collection, published, { state: 'published' })).map((res, i) => [published[i].id, res]));
    const event = eventFactory(collection);
    const events = contentEventParams(
      final.flatMap((row, i) => [
        event('content.updated', row, updatedResources[i]),
        ...(publishedResources.has(row.id) ? [event('content.published', row, publishedResources.get(row.id))] : []),
      ]),
    );
    const update = { collectionId: collection.id, rows, at: now, tokenId, events };
    // Only rows whose unique values (or locale) this write changes are rechecked: a row that keeps
    // them held them, committed, when it was read, and the write lands only on that very row version
    // (xmin), so any rival writer's own recheck sees them.
    const moved = uniques ? rows.filter((r, i) => movesUniqueValues(collection, byUuid.get(found[i].uuid)!, r.locale, validated[i].data as Record<string, unknown>)) : [];
    if (moved.length === 0) {
      if (await updateIfUnchanged(ctx, update)) return resources;
      continue;
    }
    const accept = recheckUnderLock(collection, moved.map((r) => ({ id: r.entry_id, locale: r.locale, data: r.data as Record<string, unknown> })));
    const outcome = await updateIfUnchangedAndAccepted(ctx, update, accept);
    if (outcome === 'written') return resources;
    if (outcome === 'refused') return null;
  }
  return null;
}
