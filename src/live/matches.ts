import { Prisma, type Database } from '../db/client.ts';
import type { Ctx } from '../context.ts';
import type { CollectionSchema } from '../collections/model.ts';
import { compileWhere } from '../filtering/index.ts';
import { publishedReadCondition } from '../collections/field-indexes.ts';
import { ENTRY_COLUMNS, sameCollection } from '../entries/store/rows.ts';
import { serializeEntries } from '../entries/reads/serialize.ts';
import { contentLoaders } from '../entries/reads/loaders.ts';
import { readRows, statementName } from '../entries/reads/read-rows.ts';
import type { EntryResource, EntryRow, ReadState } from '../entries/types.ts';

/**
 * Everything a read's answer may depend on besides the filter: the project's schema revision (field
 * visibility), the token's abilities and its scope (a scope changes which fields a read shows). Reads
 * of different classes are never shared.
 */
export const visibilityClass = (ctx: Ctx): string =>
  `${ctx.project.id}:${ctx.project.schemaRevision}:${ctx.actor.kind === 'token' ? [...ctx.actor.abilities].sort().join(',') : 'system'}:${ctx.scope?.digest ?? '-'}`;

/** What a read of changed entries needs besides the rows: whose context, which pool, which view. */
export interface ReadView {
  ctx: Ctx;
  reads?: Database;
  collection: CollectionSchema;
  state: ReadState;
}

/**
 * The rows of `source` (a FROM item naming the committed row `e` and its ordinal `live_n`) with each
 * filter's verdict: the conditions of listEntries (src/entries/reads/list.ts) for these entries,
 * each filter as a column, false for every filter when the row does not pass the state's own
 * conditions. `ctx` must carry a fresh memo.
 */
export async function readMatches(
  ctx: Ctx,
  view: ReadView,
  wheres: unknown[],
  source: Prisma.Sql,
  where: Prisma.Sql,
): Promise<Array<{ n: string; matches: boolean[]; entry?: EntryResource }>> {
  const { collection, state } = view;
  const column = state === 'draft' ? 'data' : 'published_data';
  const loadCollection = (id: number) => contentLoaders(ctx).collectionById.load(id);
  const tests = await Promise.all(
    wheres.map(async (w) => (await compileWhere(w, { db: ctx.db, projectId: ctx.project.id, collection, column, alias: 'e', loadCollection })) ?? Prisma.sql`true`),
  );
  const conds = [sameCollection('e.collection_id', collection.id), Prisma.sql`e.deleted_at IS NULL`];
  if (state === 'published') conds.push(publishedReadCondition('e'));
  const base = Prisma.join(conds, ' AND ');
  const tested = Prisma.join(tests.map((t) => Prisma.sql`coalesce((${base}) AND (${t}), false)`), ', ');
  // The committed rows as `entries` rows (jsonb_populate_record types each column as the table
  // does), so the list's conditions and columns apply to them unchanged. Through pg, not Prisma's
  // client (src/entries/reads/read-rows.ts): one of these runs per pass of the change stream, i.e.
  // per commit on a server that keeps up, and Prisma's per-statement CPU was a large share of the
  // server's work under the live bench (bench/live.ts). Same rows, same types (the read paths
  // serialize pg's rows the same way); the text repeats per filter set, so it is prepared once per
  // connection.
  const statement = Prisma.sql`SELECT ${ENTRY_COLUMNS}, live_n::text AS live_n, ARRAY[${tested}]::boolean[] AS live_matches
    FROM ${source} WHERE ${where}`;
  const found = await readRows<EntryRow & { live_n: string; live_matches: boolean[] }>(ctx, statement, statementName(statement.text));
  const shown = found.filter((r) => r.live_matches.some(Boolean));
  const rows = shown.map(({ live_matches: _m, live_n: _n, ...row }) => row as EntryRow);
  const serialized = await serializeEntries(ctx, collection, rows, { state, timestamps: true });
  const entryOf = new Map(shown.map((r, i) => [r, serialized[i]]));
  return found.map((r) => ({ n: r.live_n, matches: r.live_matches, entry: entryOf.get(r) }));
}

