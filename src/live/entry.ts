import { Prisma } from '../db/client.ts';
import { authorize, type Ctx } from '../context.ts';
import type { CollectionSchema } from '../collections/model.ts';
import { compileWhere } from '../filtering/index.ts';
import { publishedReadCondition } from '../filtering/field-indexes.ts';
import { ENTRY_COLUMNS, sameCollection } from '../content/rows.ts';
import { serializeEntry } from '../content/serialize.ts';
import { contentLoaders } from '../content/loaders.ts';
import type { EntryResource, EntryRow, ReadState } from '../content/types.ts';
import type { OutboxChange } from './stream.ts';

interface Waiter {
  resolve: (entry: EntryResource | null) => void;
  reject: (err: unknown) => void;
}

interface Batch {
  ctx: Ctx;
  collection: CollectionSchema;
  change: OutboxChange;
  state: ReadState;
  filters: Map<string, { where: unknown; waiters: Waiter[] }>;
}

/**
 * Reads asked of one change within a turn of the event loop, by (change, state, visibility class):
 * the groups a change is offered to ask together (src/live/hub.ts offers it to all of them at once),
 * so a change costs one statement and one serialization per state however many filters watch it.
 */
const batches = new Map<string, Batch>();

/**
 * Everything a read's answer may depend on besides the filter: the project's schema revision (field
 * visibility) and the token's abilities. Today visibility is per field, not per token, so tokens
 * differ only in abilities; they are kept apart anyway so that a per-token rule added later cannot
 * leak through a shared read.
 */
const visibilityClass = (ctx: Ctx): string =>
  `${ctx.project.id}:${ctx.project.schemaRevision}:${ctx.actor.kind === 'token' ? [...ctx.actor.abilities].sort().join(',') : 'system'}`;

/**
 * The entry a change is about, as a read of `state` filtered by `where` (the list query's filter)
 * shows it right after the change: null when it is gone or does not match. `whereKey` names `where`
 * (two subscriptions with the same key share its evaluation).
 */
export function readChangedEntry(ctx: Ctx, collection: CollectionSchema, change: OutboxChange, state: ReadState, where: unknown, whereKey: string): Promise<EntryResource | null> {
  authorize(ctx, 'read');
  const key = `${change.id}|${state}|${visibilityClass(ctx)}`;
  let batch = batches.get(key);
  if (!batch) {
    const made: Batch = { ctx, collection, change, state, filters: new Map() };
    batches.set(key, (batch = made));
    setImmediate(() => {
      batches.delete(key);
      void run(made);
    });
  }
  let filter = batch.filters.get(whereKey);
  if (!filter) batch.filters.set(whereKey, (filter = { where, waiters: [] }));
  const f = filter;
  return new Promise((resolve, reject) => f.waiters.push({ resolve, reject }));
}

async function run(batch: Batch): Promise<void> {
  const filters = [...batch.filters.values()];
  try {
    // A fresh memo: DataLoaders must never answer from an earlier change.
    const ctx: Ctx = { ...batch.ctx, memo: new Map() };
    const { collection, change, state } = batch;
    const column = state === 'draft' ? 'data' : 'published_data';
    const loadCollection = (id: number) => contentLoaders(ctx).collectionById.load(id);
    // The conditions of listEntries (src/content/list.ts) for this one entry, each filter as a column.
    const tests = await Promise.all(
      filters.map(async (f) => (await compileWhere(f.where, { db: ctx.db, projectId: ctx.project.id, collection, column, alias: 'e', loadCollection })) ?? Prisma.sql`true`),
    );
    const conds = [Prisma.sql`e.uuid = ${change.entryUuid}::uuid`, sameCollection('e.collection_id', collection.id), Prisma.sql`e.deleted_at IS NULL`, Prisma.sql`e.locale = ${change.locale}`];
    if (state === 'published') conds.push(publishedReadCondition('e'));
    const tested = Prisma.join(tests.map((t) => Prisma.sql`coalesce((${t}), false)`), ', ');
    const [found] = await ctx.db.$queryRaw<Array<EntryRow & { live_matches: boolean[] }>>(
      Prisma.sql`SELECT ${ENTRY_COLUMNS}, ARRAY[${tested}]::boolean[] AS live_matches FROM entries e WHERE ${Prisma.join(conds, ' AND ')} LIMIT 1`,
    );
    const { live_matches: matches = [], ...row } = found ?? {};
    const entry = found && matches.some(Boolean) ? await serializeEntry(ctx, collection, row as EntryRow, { state, timestamps: true }) : null;
    filters.forEach((f, i) => f.waiters.forEach((w) => w.resolve(entry && matches[i] ? entry : null)));
  } catch (err) {
    for (const f of filters) for (const w of f.waiters) w.reject(err);
  }
}
