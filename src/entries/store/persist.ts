import { randomUUID } from 'node:crypto';
import { Prisma, type Tx } from '../../db/client.ts';
import { tokenIdOf, type Ctx } from '../../context.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import { mintEntries } from './mint.ts';
import { insertEntriesPublishing } from './version-statement.ts';
import { ENTRY_COLUMNS, sameCollection, selectEntries } from './rows.ts';
import type { EntryRow } from '../types.ts';
import type { ValidatedEntry } from '../values/validate.ts';

/** Live entries of the collection by UUID, locked for update (a concurrent PATCH waits, then merges onto the result). */
export async function loadEntriesForWrite(tx: Tx, collection: CollectionSchema, uuids: string[]): Promise<EntryRow[]> {
  if (uuids.length === 0) return [];
  return selectEntries(
    tx,
    Prisma.sql`e.uuid = ANY(${uuids.map((u) => u.toLowerCase())}::uuid[]) AND ${sameCollection('e.collection_id', collection.id)} AND e.deleted_at IS NULL`,
    Prisma.sql`ORDER BY e.id FOR UPDATE`,
  );
}

/** Singleton entries share one translation group across locales (docs/entries.md); made on first need. */
async function singletonGroup(tx: Tx, ctx: Ctx, collection: CollectionSchema): Promise<number> {
  const rows = await tx.$queryRaw<Array<{ g: number | null }>>(Prisma.sql`
    SELECT min(translation_group_id) AS g FROM entries WHERE collection_id = ${collection.id} AND deleted_at IS NULL`);
  if (rows[0]?.g) return rows[0].g;
  const group = await tx.translationGroup.create({ data: { projectId: ctx.project.id } });
  await tx.$executeRaw(Prisma.sql`
    UPDATE entries SET translation_group_id = ${group.id}
    WHERE collection_id = ${collection.id} AND deleted_at IS NULL AND translation_group_id IS NULL`);
  return group.id;
}

/**
 * Inserts validated entries with one statement, returning rows in input order. A new draft is
 * `is_draft_dirty = true` (its working draft holds content no version has). An item with
 * `state: published` is written published right away: its row carries version 1's pointer and
 * `published_data`, and version 1 is inserted by the same statement, exactly as `mintEntries` would
 * leave it. Writing the row once instead of inserting and then updating it halves the index work
 * (every filter index of the collection exists on `data` and on `published_data`) and saves the lock
 * and mint round trips; a new row needs no lock, no other transaction can see it yet.
 * Raw SQL with the rows as one JSON parameter: Prisma's createManyAndReturn costs ~10x more
 * client-side time for JSON columns (measured in bench/bulk.ts).
 */
export async function insertEntries(tx: Tx, ctx: Ctx, collection: CollectionSchema, items: ValidatedEntry[]): Promise<EntryRow[]> {
  if (items.length === 0) return [];
  const group = collection.isSingleton ? await singletonGroup(tx, ctx, collection) : null;
  const input = items.map((item) => ({ uuid: randomUUID(), locale: item.locale, data: item.data, publish: item.state === 'published' }));
  const rows = input.some((i) => i.publish)
    ? await insertEntriesPublishing(tx, ctx, collection.id, group, input, tokenIdOf(ctx))
    : await tx.$queryRaw<EntryRow[]>(Prisma.sql`
    INSERT INTO entries AS e (uuid, project_id, collection_id, locale, translation_group_id, data, is_draft_dirty, updated_at)
    SELECT r.uuid, ${ctx.project.id}, ${collection.id}, r.locale, ${group}::int, r.data, true, now()
    FROM jsonb_to_recordset(${JSON.stringify(input)}::jsonb) AS r(uuid uuid, locale text, data jsonb)
    RETURNING ${ENTRY_COLUMNS}`);
  const byUuid = new Map(rows.map((r) => [r.uuid, r]));
  return input.map((i) => byUuid.get(i.uuid)!);
}

/**
 * Mints version 1 for the items created with `state: published` that are not published yet; returns
 * the rows as they are now. Rows from `insertEntries` already are (it publishes on insert), so this
 * only mints for rows inserted some other way.
 */
export async function publishCreated(tx: Tx, ctx: Ctx, rows: EntryRow[], items: ValidatedEntry[]): Promise<EntryRow[]> {
  const toPublish = rows.filter((r, i) => items[i].state === 'published' && r.publishedVersionId === null);
  if (toPublish.length === 0) return rows;
  const minted = await mintEntries(tx, ctx, toPublish.map((r) => ({ entryId: r.id, collectionId: r.collectionId })));
  const byId = new Map(minted.map((m) => [m.entry.id, m.entry]));
  return rows.map((r) => byId.get(r.id) ?? r);
}

/**
 * Stores new working drafts (and locales) of existing entries with one UPDATE. Saving never publishes
 * and never mints a version (docs/entries.md): the published pointer and copy stay, the draft is dirty.
 */
export async function updateEntries(tx: Tx, _ctx: Ctx, collection: CollectionSchema, items: ValidatedEntry[]): Promise<EntryRow[]> {
  if (items.length === 0) return [];
  const payload = items.map((i) => ({ id: i.existing!.id, data: i.data, locale: i.locale }));
  const fresh = await tx.$queryRaw<EntryRow[]>(Prisma.sql`
    UPDATE entries AS e SET data = v.data, locale = v.locale, is_draft_dirty = true, updated_at = now()
    FROM jsonb_to_recordset(${JSON.stringify(payload)}::jsonb) AS v(id int, data jsonb, locale text)
    WHERE ${sameCollection('e.collection_id', collection.id)} AND e.id = v.id
    RETURNING ${ENTRY_COLUMNS}`);
  const byId = new Map(fresh.map((r) => [r.id, r]));
  return payload.map((p) => byId.get(p.id)!);
}
