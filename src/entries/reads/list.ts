import { Prisma, type Tx } from '../../db/client.ts';
import { authorize, readSource, type Ctx } from '../../context.ts';
import { EntryNotFound } from '../../errors.ts';
import { collectionForRequest } from '../../collections/schema-cache.ts';
import { requireReadView } from '../../collections/token-scope.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import { compileWhereWithCount } from '../../filtering/index.ts';
import { publishedReadCondition } from '../../collections/field-indexes.ts';
import { ENTRY_COLUMNS } from '../store/rows.ts';
import { readColumns, readRows, takeLinked, targetLookup, type RowShape, type ReadRow, type RowWithLinks } from './read-rows.ts';
import { compileSort, sortHasIndexOrder } from './sort.ts';
import { linkedPageStatement, type RowsStatement } from './page-rows.ts';
import { serializeEntries, serializeEntry } from './serialize.ts';
import { contentLoaders } from './loaders.ts';
import { attachScores, listSearch, type ListSearch } from './search.ts';
import { fallbackFor, resolvedCondition, resolvedCountStatement } from './fallback.ts';
import type { EntryResource, EntryRow, ReadOptions, ReadState } from '../types.ts';

/** Rows a list read without paging returns at most (with or without a limit). */
export const MAX_LIST_ROWS = 1000;
/** Largest page size; larger values are capped. */
export const MAX_PAGE_SIZE = 100;

/** What a list reads: the live entries of a collection in one state, of one locale and matching a filter, in an order. */
export interface EntryListOptions {
  state: ReadState;
  locale?: string;
  /** The filter object (docs/filtering.md), as REST builds it from `where[...]`. */
  where?: unknown;
  /** "field:asc,other:desc". */
  sort?: unknown;
  /** Full-text search text (docs/filtering.md, "Search"): ranks the rows unless a sort is given. */
  search?: unknown;
  timestamps?: boolean;
  exclude?: string[];
  /** Per translation group, the entry of the first locale along `locale`'s fallback chain (src/entries/reads/fallback.ts). */
  fallback?: boolean;
  /**
   * The shape of the linked entries read with the rows (read-rows.ts, RowShape): `slim` for a
   * reader that shows none of their metadata. A fallback list reads them `full` (its chain reads their locales).
   */
  linked?: RowShape;
}

/** Which page to read: `perPage` is capped at MAX_PAGE_SIZE. */
export interface Paging {
  page: number;
  perPage: number;
}

/** One page of a list and the number of all its matches. */
export interface EntryPage {
  data: EntryResource[];
  total: number;
  page: number;
  perPage: number;
}

/** A page read without its total: whether another page follows is known from one row past the page. */
export interface EntrySlice {
  data: EntryResource[];
  hasMore: boolean;
  page: number;
  perPage: number;
}

/** Rows from `offset` (default 0), at most `limit` (capped at MAX_LIST_ROWS). */
export interface RowRange {
  limit?: number;
  offset?: number;
}

/** How a list's rows are read; only this module's operations use it. */
interface ListPlan {
  ctx: Ctx;
  collection: CollectionSchema;
  options: EntryListOptions;
  readOpts: ReadOptions;
  hasFilter: boolean;
  /** The list's search, when it has one (search.ts). */
  search: ListSearch | null;
  /** The COUNT of every match, as `total` (countStatement, or resolvedCountStatement for an unfiltered fallback list). */
  count: Prisma.Sql;
  /** Rows of the page at `offset`, in the list's order, their linked entries handed to the serializer. */
  select: (order: Prisma.Sql, limit: number, offset: number) => Promise<ReadRow[]>;
  /** The same page and the number of all matches (pageWith). */
  selectCounted: (order: Prisma.Sql, limit: number, offset: number, onePass: boolean) => Promise<{ rows: ReadRow[]; total: number }>;
}

/**
 * A list opened for reading: the collection is resolved and the filter compiled, nothing is read yet.
 * Each operation below reads it one way and returns one domain result; the surface picks the one it
 * answers with (REST from its query string, GraphQL from the field and its selection).
 */
export interface EntryList {
  /** A singleton's list holds its one entry for the locale (the default locale when none is given). */
  readonly isSingleton: boolean;
  readonly plan: ListPlan;
}

/**
 * Opens a list of a collection's entries. One SQL statement then selects the page of rows (filters,
 * sort and paging in the database; served by the (collection_id, locale, state, id) index), one more
 * counts when a total is asked (or the same one counts too: selectPage), then the page is serialized
 * with batched loads.
 */
export async function openEntryList(ctx: Ctx, slug: string, options: EntryListOptions): Promise<EntryList> {
  authorize(ctx, 'read');
  requireReadView(ctx, { state: options.state });
  const collection = await collectionForRequest(ctx, slug);
  // A listing changes with any entry of its collection: an entry joining it shows nowhere before.
  ctx.shown?.lists.add(collection.uuid);
  const column = options.state === 'draft' ? 'data' : 'published_data';
  const fallback = options.fallback ? fallbackFor(ctx, options.locale) : undefined;
  const readOpts = { state: options.state, timestamps: options.timestamps, exclude: options.exclude, fallback };
  const locale = options.locale ?? (collection.isSingleton ? ctx.project.defaultLocale : undefined);

  // The collection id inlined: an unfiltered page's text then has no parameter but the locale (page-rows.ts).
  // It also names the partition every statement of the list reads (entries are partitioned by collection).
  const partition = Prisma.raw(`e.collection_id = ${Number(collection.id)}`);
  const live: Prisma.Sql[] = [partition, Prisma.sql`e.deleted_at IS NULL`];
  // Exactly the predicate of the per-field `_p_` indexes, so their bitmap scans need no Filter.
  if (options.state === 'published') live.push(publishedReadCondition('e'));
  const conds = [...live];
  if (fallback) conds.splice(2, 0, resolvedCondition(fallback, options.state, collection.id));
  else if (locale) conds.splice(2, 0, Prisma.sql`e.locale = ${locale}`);
  const loadCollection = (id: number) => contentLoaders(ctx).collectionById.load(id);
  const filter = await compileWhereWithCount(options.where, {
    db: (await readSource(ctx)).db,
    projectId: ctx.project.id,
    collection,
    column,
    alias: 'e',
    loadCollection,
    resolveTargets: targetLookup(ctx),
  });
  const search = listSearch(ctx, collection, options.search, options.state, locale);
  if (search) conds.push(search.match);
  const where = Prisma.join(filter ? [...conds, filter.rows] : conds, ' AND ');
  // A COUNT has no order to walk, so it takes the filter's counting form (compileWhereWithCount).
  const countWhere = filter && filter.count !== filter.rows ? Prisma.join([...conds, filter.count], ' AND ') : where;
  const count = fallback && fallback.chain.length > 1 && !filter && !search ? resolvedCountStatement(fallback, Prisma.join(live, ' AND ')) : countStatement(countWhere);

  // Rows come with the entries their relations link (read-rows.ts), handed to the serializer's loader.
  const read = readColumns(ctx, collection, options.state, true, fallback ? 'full' : (options.linked ?? 'full'));
  const { links } = read;
  const columns = search ? Prisma.sql`${read.columns}${search.column}` : read.columns;
  const loader = contentLoaders(ctx).entryByUuid;
  const settle = <T extends RowWithLinks>(rows: T[]): ReadRow[] => takeLinked(rows, links, options.state, (u, r) => loader.prime(u, r), read.shape);
  const run: StatementRunner = (statement, name) => readRows(ctx, statement, name);
  // Without a filter, a page's links may be read once for the whole page (page-rows.ts).
  const linkedPage = (order: Prisma.Sql, limit: number, offset: number): RowsStatement | null =>
    filter === null && search === null ? linkedPageStatement(ctx, read, { state: options.state, projectId: collection.projectId, where, order, limit, offset }) : null;
  const select = async (order: Prisma.Sql, limit: number, offset: number) => {
    const page = linkedPage(order, limit, offset) ?? { statement: Prisma.sql`SELECT ${columns} FROM entries e WHERE ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}` };
    return settle(await run<RowWithLinks>(page.statement, page.name));
  };
  // Several ANDed conditions: the COUNT reads every match's row whatever the plan (no one index
  // answers them all), so the page is taken from those same matches in the same statement.
  const matchedFirst = filter !== null && filter.conjuncts > 1 && search === null && !fallback;
  const selectCounted = async (order: Prisma.Sql, limit: number, offset: number, onePass: boolean) => {
    const byId = matchedFirst && !onePass ? idOrder(order) : null;
    if (byId) {
      const found = await run<RowWithLinks & { total: number }>(matchedPageStatement(partition, countWhere, byId, limit, offset, columns));
      return { rows: settle(withoutTotal(found)), total: found[0]?.total ?? 0 };
    }
    const rowsStatement = onePass ? null : linkedPage(order, limit, offset);
    const found = await pageWith<RowWithLinks>(run, where, order, { partition, limit, offset, onePass, columns, count, rowsStatement });
    return { rows: settle(found.rows), total: found.total };
  };
  const plan: ListPlan = { ctx, collection, options, readOpts, hasFilter: filter !== null || search !== null, search, count, select, selectCounted };
  return { isSingleton: collection.isSingleton, plan };
}

/** The order a list's rows are read in; compiled only by the reads that have one (a COUNT ignores `sort`). */
const orderOf = ({ options, collection, search }: ListPlan): Prisma.Sql =>
  search && !hasSort(options) ? search.order : compileSort(options.sort, collection, options.state === 'draft' ? 'data' : 'published_data');

/** Whether the read names an order (an empty `sort=` names none: a search then ranks). */
const hasSort = (options: EntryListOptions): boolean => options.sort !== undefined && options.sort !== '';

/** Serialized rows, with their search scores when the list searches. */
async function serialized(plan: ListPlan, rows: ReadRow[]): Promise<EntryResource[]> {
  const data = await serializeEntries(plan.ctx, plan.collection, rows, plan.readOpts);
  return plan.search ? attachScores(rows, data) : data;
}

/** How many entries the list holds. */
export async function countEntries({ plan }: EntryList): Promise<number> {
  const [{ total }] = await readRows<{ total: number }>(plan.ctx, plan.count);
  return total;
}

/** The list's first entry in its order, or null when it holds none (a singleton without an entry for the locale). */
export async function findFirstEntry({ plan }: EntryList): Promise<EntryResource | null> {
  const [row] = await plan.select(orderOf(plan), 1, 0);
  if (!row) return null;
  return plan.search ? (await serialized(plan, [row]))[0] : serializeEntry(plan.ctx, plan.collection, row, plan.readOpts);
}

/** The list's first entry; EntryNotFound (404 "Entry not found.") when it holds none. */
export async function getFirstEntry(list: EntryList): Promise<EntryResource> {
  const entry = await findFirstEntry(list);
  if (!entry) throw new EntryNotFound();
  return entry;
}

/** One page of the list and its total. */
export async function listEntriesPage({ plan }: EntryList, paging: Paging): Promise<EntryPage> {
  const perPage = Math.min(paging.perPage, MAX_PAGE_SIZE);
  const { page } = paging;
  // A ranked order is no index order: the matches are read and sorted either way.
  const ranked = plan.search !== null && !hasSort(plan.options);
  const onePass = plan.hasFilter && (ranked || !sortHasIndexOrder(plan.options.sort, plan.collection));
  const found = await plan.selectCounted(orderOf(plan), perPage, (page - 1) * perPage, onePass);
  return { data: await serialized(plan, found.rows), total: found.total, page, perPage };
}

/**
 * One page of the list without its total, for readers that show none: GraphQL reads a slice when the
 * document selects neither the total nor anything computed from it, which saves the COUNT over every
 * match; REST always reports the total in its paginator.
 */
export async function listEntriesSlice({ plan }: EntryList, paging: Paging): Promise<EntrySlice> {
  const perPage = Math.min(paging.perPage, MAX_PAGE_SIZE);
  const { page } = paging;
  const rows = await plan.select(orderOf(plan), perPage + 1, (page - 1) * perPage);
  const data = await serialized(plan, rows.slice(0, perPage));
  return { data, hasMore: rows.length > perPage, page, perPage };
}

/** Rows of the list from an offset, without a total (at most MAX_LIST_ROWS). */
export async function listEntriesRange({ plan }: EntryList, range: RowRange): Promise<EntryResource[]> {
  const limit = Math.min(range.limit ?? MAX_LIST_ROWS, MAX_LIST_ROWS);
  const rows = await plan.select(orderOf(plan), limit, range.offset ?? 0);
  return serialized(plan, rows);
}

/** The COUNT behind a page's `total`. */
export const countStatement = (where: Prisma.Sql): Prisma.Sql => Prisma.sql`SELECT count(*)::int AS total FROM entries e WHERE ${where}`;

/**
 * The page and its total in one pass over the matches: the inner query counts every match
 * (count(*) OVER ()) while keeping only the ids of the page (a top-N sort over narrow rows), then the
 * page's rows are read by primary key. A page past the end has no row to carry the total.
 */
export const onePassPageStatement = (
  partition: Prisma.Sql,
  where: Prisma.Sql,
  order: Prisma.Sql,
  limit: number,
  offset: number,
  columns: Prisma.Sql = ENTRY_COLUMNS,
): Prisma.Sql => Prisma.sql`
  SELECT ${columns}, p.total FROM (
    SELECT e.id, count(*) OVER ()::int AS total FROM entries e WHERE ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}
  ) p JOIN entries e ON ${partition} AND e.id = p.id ORDER BY ${order}`;

/** The direction of an order by id alone (`sort` unset, `id:asc` or `id:desc`), else null. */
const idOrder = (order: Prisma.Sql): 'ASC' | 'DESC' | null =>
  order.values.length === 0 && (order.text === 'e.id ASC' || order.text === 'e.id DESC') ? (order.text.endsWith('DESC') ? 'DESC' : 'ASC') : null;

/**
 * A page in id order and the number of all its matches in one statement: the matches' ids are read
 * once (the COUNT's own scan, planned for all of them: `where` in its counting form), counted, and
 * the page's ids taken from them by a top-N sort; only the page's rows are then read whole. Two
 * statements read the matches twice when a filter ANDs several conditions: the page walked the
 * primary key testing each row until it had its rows (past every earlier row that failed), and the
 * COUNT read every match again; each was planned and sent on its own. A page past the end still
 * carries the total: one row whose columns are null (withoutTotal drops it).
 */
export const matchedPageStatement = (
  partition: Prisma.Sql,
  where: Prisma.Sql,
  dir: 'ASC' | 'DESC',
  limit: number,
  offset: number,
  columns: Prisma.Sql = ENTRY_COLUMNS,
): Prisma.Sql => {
  const direction = Prisma.raw(dir);
  return Prisma.sql`WITH list_matches AS MATERIALIZED (SELECT e.id FROM entries e WHERE ${where})
  SELECT ${columns}, list_total.total FROM (SELECT count(*)::int AS total FROM list_matches) list_total
    LEFT JOIN (SELECT m.id FROM list_matches m ORDER BY m.id ${direction} LIMIT ${limit} OFFSET ${offset}) list_page ON TRUE
    LEFT JOIN entries e ON ${partition} AND e.id = list_page.id
   ORDER BY e.id ${direction}`;
};

/** The rows of matchedPageStatement without their `total` column, and without the row of an empty page. */
function withoutTotal<R extends { id: number | null; total: number }>(found: R[]): Array<Omit<R, 'total'>> {
  const rows: Array<Omit<R, 'total'>> = [];
  for (const { total: _total, ...row } of found) if (row.id !== null) rows.push(row);
  return rows;
}

/** Runs one statement and returns its rows: a transaction's Prisma client or the plain read path (which prepares a named one). */
export type StatementRunner = <T>(statement: Prisma.Sql, name?: string) => Promise<T[]>;

/**
 * One page of a paginated list and the number of all its matches, as two statements side by side or,
 * with `onePass`, as one (onePassPageStatement). One pass pays when a filter is given and no index
 * yields the order (sortHasIndexOrder): the page query then reads and sorts every match, and the COUNT
 * reads every match again (a filter's expression cannot be answered from an index alone), so one pass
 * halves the heap visits: a 1 % filter at a million entries is 10,000 scattered heap pages per pass,
 * most of its time. Otherwise two statements are better: an indexed order lets the page stop after its
 * rows, and without a filter the COUNT is an index-only scan and the page a parallel scan, while the
 * one-pass window is single-threaded and keeps every match in memory (spilling past work_mem).
 */
export function selectPage(
  db: Tx,
  where: Prisma.Sql,
  order: Prisma.Sql,
  opts: { partition: Prisma.Sql; limit: number; offset: number; onePass: boolean },
): Promise<{ rows: EntryRow[]; total: number }> {
  return pageWith((statement) => db.$queryRaw(statement), where, order, opts);
}

/** selectPage over any runner, selecting `columns` (default: the entry columns). */
export async function pageWith<R extends ReadRow = EntryRow>(
  run: StatementRunner,
  where: Prisma.Sql,
  order: Prisma.Sql,
  opts: { partition: Prisma.Sql; limit: number; offset: number; onePass: boolean; columns?: Prisma.Sql; countWhere?: Prisma.Sql; count?: Prisma.Sql; rowsStatement?: RowsStatement | null },
): Promise<{ rows: R[]; total: number }> {
  const { limit, offset } = opts;
  const columns = opts.columns ?? ENTRY_COLUMNS;
  // The same matches as `where`, possibly in a form that only a COUNT plans well (compileWhereWithCount).
  // `count`: the whole COUNT statement, when the matches have a cheaper count than `where`'s.
  const count = opts.count ?? countStatement(opts.countWhere ?? where);
  if (!opts.onePass) {
    // `rowsStatement`: the same rows in another form (page-rows.ts), with its prepared name.
    const page = opts.rowsStatement ?? { statement: Prisma.sql`SELECT ${columns} FROM entries e WHERE ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}` };
    const [rows, [{ total }]] = await Promise.all([
      run<R>(page.statement, page.name),
      run<{ total: number }>(count),
    ]);
    return { rows, total };
  }
  const found = await run<R & { total: number }>(onePassPageStatement(opts.partition, where, order, limit, offset, columns));
  if (found.length === 0) {
    const total = offset === 0 ? 0 : (await run<{ total: number }>(count))[0].total;
    return { rows: [], total };
  }
  return { rows: found.map(({ total: _total, ...row }) => row as unknown as R), total: found[0].total };
}
