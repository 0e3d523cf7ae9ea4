import type { Entry } from '../../db/generated/prisma/client.ts';
import type { Tx } from '../../db/client.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import type { Ctx } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { liveEntryByUuid } from '../store/rows.ts';
import { isUuid } from '../types.ts';

const MAX_INT4 = 2_147_483_647;

/**
 * The `{version}` path segment. Anything that is not a plain positive integer cannot name a version,
 * so it is answered like an unknown number: 404 `Version not found.` (never a 500 from the database).
 */
export function parseVersionNumber(raw: unknown): number {
  const s = typeof raw === 'number' ? String(raw) : raw;
  if (typeof s !== 'string' || !/^\d{1,10}$/.test(s)) throw notFound('Version not found.');
  const n = Number(s);
  if (n < 1 || n > MAX_INT4) throw notFound('Version not found.');
  return n;
}

/** A live entry of this collection, or 404 `Entry not found.` (malformed UUIDs included). */
export async function findEntry(db: Tx, ctx: Ctx, collection: CollectionSchema, uuid: string): Promise<Entry> {
  if (!isUuid(uuid)) throw notFound('Entry not found.');
  const entry = await liveEntryByUuid(db, collection.id, uuid);
  if (!entry || entry.projectId !== ctx.project.id) throw notFound('Entry not found.');
  return entry;
}

/**
 * Same as findEntry, but takes the row lock first, inside the caller's transaction: an operation that
 * reads a version and then mints (revert) must hold the lock before the read, or a concurrent
 * publish could prune that version in between.
 */
export async function lockEntry(tx: Tx, ctx: Ctx, collection: CollectionSchema, uuid: string): Promise<Entry> {
  if (!isUuid(uuid)) throw notFound('Entry not found.');
  const entry = await liveEntryByUuid(tx, collection.id, uuid, { lock: true });
  if (!entry || entry.projectId !== ctx.project.id) throw notFound('Entry not found.');
  return entry;
}
