import { Prisma, type Tx } from '../../db/client.ts';
import { authorize, type Ctx } from '../../context.ts';
import { ErrorBag, notFound } from '../../errors.ts';
import { collectionForRequest } from '../../collections/schema-cache.ts';
import { compileWhereWithCount } from '../../filtering/index.ts';
import { publishedReadCondition } from '../../filtering/field-indexes.ts';
import { ENTRY_COLUMNS } from '../store/rows.ts';
import { readColumns, readRows, takeLinked, type ReadRow, type RowWithLinks } from './read-rows.ts';
import { compileSort, sortHasIndexOrder } from './sort.ts';
import { linkedPageStatement, type RowsStatement } from './page-rows.ts';
import { serializeEntries, serializeEntry } from './serialize.ts';
import { contentLoaders } from './loaders.ts';
import { firstString, isFlag, parseList, parsePositiveInt, parseState } from './query.ts';
import type { EntryResource, EntryRow, ReadState } from '../types.ts';

/** Rows a list without `paginate` returns at most (with or without `limit`). */
export const MAX_LIST_ROWS = 1000;
/** Largest `paginate` page size; larger values are capped. */
export const MAX_PAGE_SIZE = 100;

export interface ListQuery {
  state: ReadState;
  locale?: string;
  where?: unknown;
  sort?: unknown;
  /** Page size: switches to a paginated result. */
  paginate?: number;
  page?: number;
  limit?: number;
  offset?: number;
  count?: boolean;
  first?: boolean;
  timestamps?: boolean;
  exclude?: string[];
}

export type ListResult =
  | { kind: 'count'; count: number }
  | { kind: 'one'; entry: EntryResource }
  | { kind: 'page'; data: EntryResource[]; total: number; page: number; perPage: number }
  | { kind: 'array'; data: EntryResource[] };

/** A page read without its total: whether another page follows is known from one row past the page. */
export interface PageSlice {
  kind: 'slice';
  data: EntryResource[];
  hasMore: boolean;
  page: number;
  perPage: number;
}

/**
 * Whether a paginated read needs its total. GraphQL passes false when the document selects neither
 * the total nor anything computed from it, which saves the COUNT over every match; REST always
 * reports the total in its paginator, so it never passes the flag.
 */
export type ListQueryWithTotal = ListQuery & { withTotal: boolean };

/** The REST query string (docs/filtering.md) as a ListQuery; malformed numbers are a 422 naming the parameter. */
export function parseListQuery(q: Record<string, unknown>): ListQuery {
  const bag = new ErrorBag();
  const query: ListQuery = {
    state: parseState(q.state),
    locale: firstString(q.locale)?.toLowerCase(),
    where: q.where,
    sort: firstString(q.sort),
    paginate: parsePositiveInt(bag, 'paginate', q.paginate),
    page: parsePositiveInt(bag, 'page', q.page),
    limit: parsePositiveInt(bag, 'limit', q.limit),
    offset: parsePositiveInt(bag, 'offset', q.offset, { min: 0 }),
    count: isFlag(q.count),
    first: isFlag(q.first),
    timestamps: isFlag(q.timestamps),
    exclude: parseList(q.exclude),
  };
  bag.throwIfAny();
  return query;
}

/**
 * Lists entries of a collection. One SQL statement selects the page of rows (filters, sort and paging in
 * the database; served by the (collection_id, locale, state, id) index), one more counts when paginating
 * (or the same one counts too: selectPage), then the page is serialized with batched loads. Singletons
 * return their one entry for the locale (default locale when omitted) and ignore paging, count and first.
 */
export async function listEntries(ctx: Ctx, slug: string, query: ListQueryWithTotal): Promise<ListResult | PageSlice>;
export async function listEntries(ctx: Ctx, slug: string, query: ListQuery): Promise<ListResult>;
export async function listEntries(ctx: Ctx, slug: string, query: ListQuery & { withTotal?: boolean }): Promise<ListResult | PageSlice> {
  authorize(ctx, 'read');
  const collection = await collectionForRequest(ctx, slug);
  const column = query.state === 'draft' ? 'data' : 'published_data';
  const readOpts = { state: query.state, timestamps: query.timestamps, exclude: query.exclude };
  const locale = query.locale ?? (collection.isSingleton ? ctx.project.defaultLocale : undefined);

  // The collection id inlined: an unfiltered page's text then has no parameter but the locale (page-rows.ts).
  const conds: Prisma.Sql[] = [Prisma.raw(`e.collection_id = ${Number(collection.id)}`), Prisma.sql`e.deleted_at IS NULL`];
  if (locale) conds.push(Prisma.sql`e.locale = ${locale}`);
  // Exactly the predicate of the per-field `_p_` indexes, so their bitmap scans need no Filter.
  if (query.state === 'published') conds.push(publishedReadCondition('e'));
  const loadCollection = (id: number) => contentLoaders(ctx).collectionById.load(id);
  const filter = await compileWhereWithCount(query.where, {
    db: ctx.db,
    projectId: ctx.project.id,
    collection,
    column,
    alias: 'e',
    loadCollection,
    resolveTargets: (statement) => readRows(ctx, statement),
  });
  const where = Prisma.join(filter ? [...conds, filter.rows] : conds, ' AND ');
  // A COUNT has no order to walk, so it takes the filter's counting form (compileWhereWithCount).
  const countWhere = filter && filter.count !== filter.rows ? Prisma.join([...conds, filter.count], ' AND ') : where;

  if (query.count && !collection.isSingleton) {
    const [{ count }] = await readRows<{ count: number }>(ctx, Prisma.sql`SELECT count(*)::int AS count FROM entries e WHERE ${countWhere}`);
    return { kind: 'count', count };
  }
  const order = compileSort(query.sort, collection, column);
  // Rows come with the entries their relations link (read-rows.ts), handed to the serializer's loader.
  const read = readColumns(ctx, collection, query.state);
  const { columns, links } = read;
  const loader = contentLoaders(ctx).entryByUuid;
  const settle = <T extends RowWithLinks>(rows: T[]): ReadRow[] => takeLinked(rows, links, query.state, (u, r) => loader.prime(u, r));
  const run: StatementRunner = (statement, name) => readRows(ctx, statement, name);
  // Without a filter, a page's links may be read once for the whole page (page-rows.ts).
  const linkedPage = (limit: number, offset: number): RowsStatement | null =>
    filter === null ? linkedPageStatement(ctx, read, { state: query.state, projectId: collection.projectId, where, order, limit, offset }) : null;
  const select = async (limit: number, offset: number) => {
    const page = linkedPage(limit, offset) ?? { statement: Prisma.sql`SELECT ${columns} FROM entries e WHERE ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}` };
    return settle(await run<RowWithLinks>(page.statement, page.name));
  };

  if (collection.isSingleton || query.first) {
    const [row] = await select(1, 0);
    if (!row) throw notFound('Entry not found.');
    return { kind: 'one', entry: await serializeEntry(ctx, collection, row, readOpts) };
  }

  if (query.paginate !== undefined) {
    const perPage = Math.min(query.paginate, MAX_PAGE_SIZE);
    const page = query.page ?? 1;
    if (query.withTotal === false) {
      const rows = await select(perPage + 1, (page - 1) * perPage);
      const data = await serializeEntries(ctx, collection, rows.slice(0, perPage), readOpts);
      return { kind: 'slice', data, hasMore: rows.length > perPage, page, perPage };
    }
    const onePass = filter !== null && !sortHasIndexOrder(query.sort, collection);
    const offset = (page - 1) * perPage;
    const rowsStatement = onePass ? null : linkedPage(perPage, offset);
    const found = await pageWith<RowWithLinks>(run, where, order, { limit: perPage, offset, onePass, columns, countWhere, rowsStatement });
    return { kind: 'page', data: await serializeEntries(ctx, collection, settle(found.rows), readOpts), total: found.total, page, perPage };
  }

  const limit = Math.min(query.limit ?? MAX_LIST_ROWS, MAX_LIST_ROWS);
  const offset = query.limit !== undefined ? (query.offset ?? 0) : 0;
  const rows = await select(limit, offset);
  return { kind: 'array', data: await serializeEntries(ctx, collection, rows, readOpts) };
}

/** The COUNT behind a page's `total`. */
export const countStatement = (where: Prisma.Sql): Prisma.Sql => Prisma.sql`SELECT count(*)::int AS total FROM entries e WHERE ${where}`;

/**
 * The page and its total in one pass over the matches: the inner query counts every match
 * (count(*) OVER ()) while keeping only the ids of the page (a top-N sort over narrow rows), then the
 * page's rows are read by primary key. A page past the end has no row to carry the total.
 */
export const onePassPageStatement = (where: Prisma.Sql, order: Prisma.Sql, limit: number, offset: number, columns: Prisma.Sql = ENTRY_COLUMNS): Prisma.Sql => Prisma.sql`
  SELECT ${columns}, p.total FROM (
    SELECT e.id, count(*) OVER ()::int AS total FROM entries e WHERE ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}
  ) p JOIN entries e ON e.id = p.id ORDER BY ${order}`;

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
  opts: { limit: number; offset: number; onePass: boolean },
): Promise<{ rows: EntryRow[]; total: number }> {
  return pageWith((statement) => db.$queryRaw(statement), where, order, opts);
}

/** selectPage over any runner, selecting `columns` (default: the entry columns). */
export async function pageWith<R extends ReadRow = EntryRow>(
  run: StatementRunner,
  where: Prisma.Sql,
  order: Prisma.Sql,
  opts: { limit: number; offset: number; onePass: boolean; columns?: Prisma.Sql; countWhere?: Prisma.Sql; rowsStatement?: RowsStatement | null },
): Promise<{ rows: R[]; total: number }> {
  const { limit, offset } = opts;
  const columns = opts.columns ?? ENTRY_COLUMNS;
  // The same matches as `where`, possibly in a form that only a COUNT plans well (compileWhereWithCount).
  const countWhere = opts.countWhere ?? where;
  if (!opts.onePass) {
    // `rowsStatement`: the same rows in another form (page-rows.ts), with its prepared name.
    const page = opts.rowsStatement ?? { statement: Prisma.sql`SELECT ${columns} FROM entries e WHERE ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}` };
    const [rows, [{ total }]] = await Promise.all([
      run<R>(page.statement, page.name),
      run<{ total: number }>(countStatement(countWhere)),
    ]);
    return { rows, total };
  }
  const found = await run<R & { total: number }>(onePassPageStatement(where, order, limit, offset, columns));
  if (found.length === 0) {
    const total = offset === 0 ? 0 : (await run<{ total: number }>(countStatement(countWhere)))[0].total;
    return { rows: [], total };
  }
  return { rows: found.map(({ total: _total, ...row }) => row as unknown as R), total: found[0].total };
}
