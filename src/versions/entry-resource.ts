import type { Entry } from '../db/generated/prisma/client.ts';
import type { PrismaClient, Tx } from '../db/client.ts';
import type { CollectionSchema } from '../collections/model.ts';
import type { Ctx } from '../context.ts';
import { serializeEntry, type EntryResource, type ReadState } from '../content/serialize.ts';

/**
 * The entry resource that publish/unpublish/revert return and put in their events, serialized inside
 * the transaction: its loaders must read through `tx` (to see the new pointer and to avoid waiting on
 * a second pool connection while this one holds the entry lock), so they get a fresh memo.
 */
export async function entryResource(tx: Tx, ctx: Ctx, collection: CollectionSchema, entry: Entry, state: ReadState): Promise<EntryResource> {
  const inTx: Ctx = { ...ctx, db: tx as PrismaClient, memo: new Map() };
  return serializeEntry(inTx, collection, entry, { state });
}
