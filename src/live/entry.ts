import { Prisma, type Database } from '../db/client.ts';
import { authorize, type Ctx } from '../context.ts';
import type { CollectionSchema } from '../collections/model.ts';
import type { EntryResource, ReadState } from '../entries/types.ts';
import type { OutboxChange } from './stream.ts';
import { readMatches, visibilityClass } from './matches.ts';
import { noteStanding, prefetched } from './prefetch.ts';
import { stage, stagesOn } from './stages.ts';

interface Waiter {
  /** The outbox id of the change asked about. */
  change: number;
  resolve: (entry: EntryResource | null) => void;
  reject: (err: unknown) => void;
}

interface Batch {
  ctx: Ctx;
  reads?: Database;
  collection: CollectionSchema;
  state: ReadState;
  /** The committed rows asked about, by outbox id (several changes of one entry are several rows). */
  changes: Map<number, Record<string, unknown>>;
  filters: Map<string, { where: unknown; waiters: Waiter[] }>;
}

/**
 * Reads asked within a turn of the event loop, by (collection, state, visibility class): the groups
 * a change is offered to ask together (src/live/hub.ts offers it to all of them at once), and a pass
 * of the change stream offers all the changes it released at once, so a pass costs one statement and
 * one serialization per collection and state, however many filters watch it and however many changes
 * it carries. A server that falls behind thus reads in larger batches, and its members' events of one
 * pass leave in one write.
 */
const batches = new Map<string, Batch>();

/**
 * The entry a change is about, as a read of `state` filtered by `where` (the list query's filter)
 * would have shown it right after that change committed: the entry's own row is the one the commit
 * wrote (`change.committed`, recorded by the writer's statement), never the row as it is when the event
 * is rendered, so each of several quick changes of one entry shows its own values, however late it is
 * rendered (a server behind, a resume). Null when the entry does not match then (deleted, trashed, not
 * published, outside `where`). What the row refers to (relations, media, and the entries a relation
 * filter looks into) is read as it is now, as any read would. `whereKey` names `where` (two
 * subscriptions with the same key share its evaluation).
 */
export function readChangedEntry(
  ctx: Ctx,
  collection: CollectionSchema,
  change: OutboxChange,
  state: ReadState,
  where: unknown,
  whereKey: string,
  reads?: Database,
): Promise<EntryResource | null> {
  authorize(ctx, 'read');
  // An event without the row (a deletion) shows no entry.
  const committed = change.committed;
  if (!committed) return Promise.resolve(null);
  const key = `${collection.id}|${state}|${visibilityClass(ctx)}`;
  const readNow = () => batched(key, ctx, collection, change, committed, state, where, whereKey, reads);
  if (!reads) return readNow();
  noteStanding(key, { ctx, reads, collection, state }, whereKey, where, Date.now());
  // Read beside the outbox pass that released it (./prefetch.ts), when that read covered it.
  const ready = prefetched(reads, key, change.id, whereKey);
  if (stagesOn) stage({ k: 'pf', id: change.id, how: ready === undefined ? 'miss' : ready instanceof Promise ? 'wait' : 'hit' });
  if (ready === undefined) return readNow();
  if (!(ready instanceof Promise)) return Promise.resolve(ready);
  return ready.then((r) => (r === undefined ? readNow() : r));
}

/** The change's read joined to this turn's batch of its key: one statement for every change and filter asked in the turn. */
function batched(
  key: string,
  ctx: Ctx,
  collection: CollectionSchema,
  change: OutboxChange,
  committed: Record<string, unknown>,
  state: ReadState,
  where: unknown,
  whereKey: string,
  reads?: Database,
): Promise<EntryResource | null> {
  let batch = batches.get(key);
  if (!batch) {
    const made: Batch = { ctx, reads, collection, state, changes: new Map(), filters: new Map() };
    batches.set(key, (batch = made));
    // Once the promise jobs of this turn have run (every group offered a pass's changes asks within
    // them), not at the next check phase: setImmediate waited behind every other I/O callback of the
    // loop's poll (REST requests, other statements' answers), and every event waits for this read.
    process.nextTick(() => {
      batches.delete(key);
      void run(made);
    });
  }
  batch.changes.set(change.id, committed);
  let filter = batch.filters.get(whereKey);
  if (!filter) batch.filters.set(whereKey, (filter = { where, waiters: [] }));
  const f = filter;
  return new Promise((resolve, reject) => f.waiters.push({ change: change.id, resolve, reject }));
}

async function run(batch: Batch): Promise<void> {
  const filters = [...batch.filters.values()];
  try {
    // A fresh memo: DataLoaders must never answer from an earlier read. Its statements go through the
    // live hub's own connections (`reads`, src/live/hub.ts) when it has them (readSource).
    const ctx: Ctx = { ...batch.ctx, memo: new Map(), readPool: batch.reads };
    const ids = [...batch.changes.keys()];
    const source = Prisma.sql`jsonb_array_elements(${JSON.stringify([...batch.changes.values()])}::jsonb) WITH ORDINALITY AS x(j, live_n)
      CROSS JOIN LATERAL jsonb_populate_record(NULL::entries, x.j) e`;
    const found = await readMatches(ctx, batch, filters.map((f) => f.where), source, Prisma.sql`true`);
    const byChange = new Map(found.map((r) => [ids[Number(r.n) - 1], r]));
    filters.forEach((f, i) =>
      f.waiters.forEach((w) => {
        const hit = byChange.get(w.change);
        w.resolve(hit?.matches[i] ? hit.entry! : null);
      }),
    );
  } catch (err) {
    for (const f of filters) for (const w of f.waiters) w.reject(err);
  }
}
