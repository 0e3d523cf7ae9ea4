import { randomUUID } from 'node:crypto';
import { Prisma, type Tx } from '../db/client.ts';
import type { Ctx } from '../context.ts';
import type { CollectionSchema } from '../collections/model.ts';
import { mintEntries } from '../versions/mint.ts';
import { ENTRY_COLUMNS, selectEntries } from './rows.ts';
import type { EntryRow } from './types.ts';
import type { ValidatedEntry } from './validate.ts';

/**
 * Serialises writes that check "no other entry has this" (singleton, unique values, slugs) per
 * collection + locale, across processes: a transaction-scoped advisory lock, taken in sorted order so
 * two batches touching the same locales cannot deadlock. Without it two concurrent creates could both
 * see "free" and both insert.
 */
export async function lockWriteScope(tx: Tx, collection: CollectionSchema, locales: string[]): Promise<void> {
  const sorted = [...new Set(locales)].sort();
  if (sorted.length === 0) return;
  await tx.$queryRaw(Prisma.sql`
    SELECT pg_advisory_xact_lock(${collection.id}::int, hashtext(s.l))::text
    FROM (SELECT l FROM unnest(${sorted}::text[]) AS l ORDER BY l) s`);
}

/** Live entries of the collection by UUID, locked for update (a concurrent PATCH waits, then merges onto the result). */
export async function loadEntriesForWrite(tx: Tx, collection: CollectionSchema, uuids: string[]): Promise<EntryRow[]> {
  if (uuids.length === 0) return [];
  return selectEntries(
    tx,
    Prisma.sql`e.collection_id = ${collection.id} AND e.deleted_at IS NULL AND e.uuid = ANY(${uuids.map((u) => u.toLowerCase())}::uuid[])`,
    Prisma.sql`ORDER BY e.id FOR UPDATE`,
  );
}

/** Singleton entries share one translation group across locales (facts §2.2); made on first need. */
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
 * Inserts validated entries as drafts with one INSERT, returning rows in input order. A new draft is
 * `is_draft_dirty = true` (its working draft holds content no version has); publishing resets it.
 * Raw SQL with the rows as one JSON parameter: Prisma's createManyAndReturn costs ~10x more
 * client-side time for JSON columns (measured in bench/bulk.ts).
 */
export async function insertEntries(tx: Tx, ctx: Ctx, collection: CollectionSchema, items: ValidatedEntry[]): Promise<EntryRow[]> {
  if (items.length === 0) return [];
  const group = collection.isSingleton ? await singletonGroup(tx, ctx, collection) : null;
  const input = items.map((item) => ({ uuid: randomUUID(), locale: item.locale, data: item.data }));
  const rows = await tx.$queryRaw<EntryRow[]>(Prisma.sql`
    INSERT INTO entries AS e (uuid, project_id, collection_id, locale, translation_group_id, data, is_draft_dirty, updated_at)
    SELECT r.uuid, ${ctx.project.id}, ${collection.id}, r.locale, ${group}::int, r.data, true, now()
    FROM jsonb_to_recordset(${JSON.stringify(input)}::jsonb) AS r(uuid uuid, locale text, data jsonb)
    RETURNING ${ENTRY_COLUMNS}`);
  const byUuid = new Map(rows.map((r) => [r.uuid, r]));
  return input.map((i) => byUuid.get(i.uuid)!);
}

/** Mints version 1 for the items created with `state: published`; returns the rows as they are now. */
export async function publishCreated(tx: Tx, ctx: Ctx, rows: EntryRow[], items: ValidatedEntry[]): Promise<EntryRow[]> {
  const toPublish = rows.filter((_, i) => items[i].state === 'published');
  if (toPublish.length === 0) return rows;
  const minted = await mintEntries(tx, ctx, toPublish.map((r) => ({ entryId: r.id })));
  const byId = new Map(minted.map((m) => [m.entry.id, m.entry]));
  return rows.map((r) => byId.get(r.id) ?? r);
}

/**
 * Stores new working drafts (and locales) of existing entries with one UPDATE. Saving never publishes
 * and never mints a version (spec §3.1 rule 1): the published pointer and copy stay, the draft is dirty.
 */
export async function updateEntries(tx: Tx, _ctx: Ctx, _collection: CollectionSchema, items: ValidatedEntry[]): Promise<EntryRow[]> {
  if (items.length === 0) return [];
  const payload = items.map((i) => ({ id: i.existing!.id, data: i.data, locale: i.locale }));
  await tx.$executeRaw(Prisma.sql`
    UPDATE entries AS e SET data = v.data, locale = v.locale, is_draft_dirty = true, updated_at = now()
    FROM jsonb_to_recordset(${JSON.stringify(payload)}::jsonb) AS v(id int, data jsonb, locale text)
    WHERE e.id = v.id`);
  const fresh = await selectEntries(tx, Prisma.sql`e.id = ANY(${payload.map((p) => p.id)}::int[])`);
  const byId = new Map(fresh.map((r) => [r.id, r]));
  return payload.map((p) => byId.get(p.id)!);
}
