import { Prisma, type Database } from '../db/client.ts';
import { authorize, type Ctx } from '../context.ts';
import type { CollectionSchema } from '../collections/model.ts';
import { compileWhere } from '../filtering/index.ts';
import { publishedReadCondition } from '../collections/field-indexes.ts';
import { ENTRY_COLUMNS, sameCollection } from '../entries/store/rows.ts';
import { serializeEntries } from '../entries/reads/serialize.ts';
import { contentLoaders } from '../entries/reads/loaders.ts';
import { readRows, statementName } from '../entries/reads/read-rows.ts';
import type { EntryResource, EntryRow, ReadState } from '../entries/types.ts';
import type { OutboxChange } from './stream.ts';

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
 * Everything a read's answer may depend on besides the filter: the project's schema revision (field
 * visibility) and the token's abilities. Today visibility is per field, not per token, so tokens
 * differ only in abilities; they are kept apart anyway so that a per-token rule added later cannot
 * leak through a shared read.
 */
// A token scope changes which fields a read shows: reads of different scopes are never shared.
const visibilityClass = (ctx: Ctx): string =>
  `${ctx.project.id}:${ctx.project.schemaRevision}:${ctx.actor.kind === 'token' ? [...ctx.actor.abilities].sort().join(',') : 'system'}:${ctx.scope?.digest ?? '-'}`;

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
  if (!change.committed) return Promise.resolve(null);
  const key = `${collection.id}|${state}|${visibilityClass(ctx)}`;
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
  batch.changes.set(change.id, change.committed);
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
    const { collection, state } = batch;
    const column = state === 'draft' ? 'data' : 'published_data';
    const loadCollection = (id: number) => contentLoaders(ctx).collectionById.load(id);
    // The conditions of listEntries (src/entries/reads/list.ts) for these entries, each filter as a column.
    const tests = await Promise.all(
      filters.map(async (f) => (await compileWhere(f.where, { db: ctx.db, projectId: ctx.project.id, collection, column, alias: 'e', loadCollection })) ?? Prisma.sql`true`),
    );
    const ids = [...batch.changes.keys()];
    const conds = [sameCollection('e.collection_id', collection.id), Prisma.sql`e.deleted_at IS NULL`];
    if (state === 'published') conds.push(publishedReadCondition('e'));
    const tested = Prisma.join(tests.map((t) => Prisma.sql`coalesce((${t}), false)`), ', ');
    // The committed rows as `entries` rows (jsonb_populate_record types each column as the table
    // does), so the list's conditions and columns apply to them unchanged. Through pg, not Prisma's
    // client (src/entries/reads/read-rows.ts): one of these runs per pass of the change stream, i.e.
    // per commit on a server that keeps up, and Prisma's per-statement CPU was a large share of the
    // server's work under the live bench (bench/live.ts). Same rows, same types (the read paths
    // serialize pg's rows the same way); the text repeats per filter set, so it is prepared once per
    // connection.
    const statement = Prisma.sql`SELECT ${ENTRY_COLUMNS}, x.n::int AS live_n, ARRAY[${tested}]::boolean[] AS live_matches
      FROM jsonb_array_elements(${JSON.stringify([...batch.changes.values()])}::jsonb) WITH ORDINALITY AS x(j, n)
      CROSS JOIN LATERAL jsonb_populate_record(NULL::entries, x.j) e
      WHERE ${Prisma.join(conds, ' AND ')}`;
    const found = await readRows<EntryRow & { live_n: number; live_matches: boolean[] }>(ctx, statement, statementName(statement.text));
    const shown = found.filter((r) => r.live_matches.some(Boolean));
    const rows = shown.map(({ live_matches: _m, live_n: _n, ...row }) => row as EntryRow);
    const serialized = await serializeEntries(ctx, collection, rows, { state, timestamps: true });
    const byChange = new Map(shown.map((r, i) => [ids[r.live_n - 1], { matches: r.live_matches, entry: serialized[i] }]));
    filters.forEach((f, i) =>
      f.waiters.forEach((w) => {
        const hit = byChange.get(w.change);
        w.resolve(hit?.matches[i] ? hit.entry : null);
      }),
    );
  } catch (err) {
    for (const f of filters) for (const w of f.waiters) w.reject(err);
  }
}
