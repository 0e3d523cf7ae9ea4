import { Prisma } from '../db/client.ts';
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
  /** `uuid|locale` of the entry asked about. */
  entry: string;
  resolve: (entry: EntryResource | null) => void;
  reject: (err: unknown) => void;
}

interface Batch {
  ctx: Ctx;
  collection: CollectionSchema;
  state: ReadState;
  /** The entries asked about: `uuid|locale` → [uuid, locale]. */
  entries: Map<string, [string, string]>;
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
 * shows it now (right after the change, or later when the server is behind or a backlog is
 * replayed): null when it is gone or does not match. `whereKey` names `where` (two subscriptions with
 * the same key share its evaluation).
 */
export function readChangedEntry(ctx: Ctx, collection: CollectionSchema, change: OutboxChange, state: ReadState, where: unknown, whereKey: string): Promise<EntryResource | null> {
  authorize(ctx, 'read');
  const key = `${collection.id}|${state}|${visibilityClass(ctx)}`;
  let batch = batches.get(key);
  if (!batch) {
    const made: Batch = { ctx, collection, state, entries: new Map(), filters: new Map() };
    batches.set(key, (batch = made));
    setImmediate(() => {
      batches.delete(key);
      void run(made);
    });
  }
  const entry = `${change.entryUuid}|${change.locale}`;
  batch.entries.set(entry, [change.entryUuid, change.locale]);
  let filter = batch.filters.get(whereKey);
  if (!filter) batch.filters.set(whereKey, (filter = { where, waiters: [] }));
  const f = filter;
  return new Promise((resolve, reject) => f.waiters.push({ entry, resolve, reject }));
}

async function run(batch: Batch): Promise<void> {
  const filters = [...batch.filters.values()];
  try {
    // A fresh memo: DataLoaders must never answer from an earlier read.
    const ctx: Ctx = { ...batch.ctx, memo: new Map() };
    const { collection, state } = batch;
    const column = state === 'draft' ? 'data' : 'published_data';
    const loadCollection = (id: number) => contentLoaders(ctx).collectionById.load(id);
    // The conditions of listEntries (src/entries/reads/list.ts) for these entries, each filter as a column.
    const tests = await Promise.all(
      filters.map(async (f) => (await compileWhere(f.where, { db: ctx.db, projectId: ctx.project.id, collection, column, alias: 'e', loadCollection })) ?? Prisma.sql`true`),
    );
    const wanted = [...batch.entries.values()];
    const conds = [
      Prisma.sql`(e.uuid, e.locale) IN (SELECT * FROM unnest(${wanted.map(([u]) => u)}::text[]::uuid[], ${wanted.map(([, l]) => l)}::text[]))`,
      sameCollection('e.collection_id', collection.id),
      Prisma.sql`e.deleted_at IS NULL`,
    ];
    if (state === 'published') conds.push(publishedReadCondition('e'));
    const tested = Prisma.join(tests.map((t) => Prisma.sql`coalesce((${t}), false)`), ', ');
    // Through pg, not Prisma's client (src/entries/reads/read-rows.ts): one of these runs per pass of the
    // change stream, i.e. per commit on a server that keeps up, and Prisma's per-statement CPU was
    // a large share of the server's work under the live bench (bench/live.ts). Same rows, same types
    // (the read paths serialize pg's rows the same way); the text repeats per filter set, so it is
    // prepared once per connection.
    const statement = Prisma.sql`SELECT ${ENTRY_COLUMNS}, ARRAY[${tested}]::boolean[] AS live_matches FROM entries e WHERE ${Prisma.join(conds, ' AND ')}`;
    const found = await readRows<EntryRow & { live_matches: boolean[] }>(ctx, statement, statementName(statement.text));
    const shown = found.filter((r) => r.live_matches.some(Boolean));
    const rows = shown.map(({ live_matches: _m, ...row }) => row as EntryRow);
    const serialized = await serializeEntries(ctx, collection, rows, { state, timestamps: true });
    const byEntry = new Map(shown.map((r, i) => [`${r.uuid}|${r.locale}`, { matches: r.live_matches, entry: serialized[i] }]));
    filters.forEach((f, i) =>
      f.waiters.forEach((w) => {
        const hit = byEntry.get(w.entry);
        w.resolve(hit?.matches[i] ? hit.entry : null);
      }),
    );
  } catch (err) {
    for (const f of filters) for (const w of f.waiters) w.reject(err);
  }
}
