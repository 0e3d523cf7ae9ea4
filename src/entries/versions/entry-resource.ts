import type { Entry } from '../../db/generated/prisma/client.ts';
import type { Tx } from '../../db/client.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import type { Ctx } from '../../context.ts';
import { serializeEntry, type EntryResource, type ReadState } from '../reads/serialize.ts';
import { txCtx } from '../operations/entry.ts';

/**
 * The entry resource that publish/unpublish/revert return and put in their events, serialized inside
 * the transaction: its loaders must read through `tx` (to see the new pointer, and so they never wait
 * on a second pool connection — or on PGlite's single one — while this one holds the entry lock).
 */
export function entryResource(tx: Tx, ctx: Ctx, collection: CollectionSchema, entry: Entry, state: ReadState): Promise<EntryResource> {
  return serializeEntry(txCtx(ctx, tx), collection, entry, { state });
}
