import { ErrorBag } from '../errors.ts';
import { firstString, parsePositiveInt } from '../text.ts';
import { toReadState, type ReadOptions } from '../entries/types.ts';
import type { EntryListOptions } from '../entries/reads/list.ts';
import type { TrashQuery } from '../entries/operations/trash.ts';

/**
 * The REST query strings of entry reads (docs/entries.md, docs/filtering.md) as the typed options of
 * the content operations. Malformed numbers are a 422 naming the parameter; everything else that is
 * not understood reads as absent, as the docs promise.
 */

/** Flags that count when present (`?timestamps`, `?timestamps=1`, `?count`), except an explicit false/0. */
export const isFlag = (v: unknown): boolean => v !== undefined && v !== null && v !== false && v !== 'false' && v !== '0' && v !== 0;

/** `exclude=a,b` or `exclude[]=a&exclude[]=b`. */
export function parseList(v: unknown): string[] {
  const parts = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : [];
  return parts.map((p) => String(p).trim()).filter(Boolean);
}

export function parseReadOptions(q: Record<string, unknown>): ReadOptions {
  return { state: toReadState(q.state), timestamps: isFlag(q.timestamps), exclude: parseList(q.exclude) };
}

/**
 * `GET /api/{collection}`: what to list, and which answer the query string asks for. `count` answers
 * `{ count }`, `first` the first entry, `paginate` a paginator, otherwise an array (`limit`/`offset`);
 * a singleton answers its one entry whatever these say.
 */
export interface ListRequest {
  options: EntryListOptions;
  count: boolean;
  first: boolean;
  /** Page size: switches to a paginated answer. */
  paginate?: number;
  page?: number;
  limit?: number;
  offset?: number;
}

export function parseListQuery(q: Record<string, unknown>): ListRequest {
  const bag = new ErrorBag();
  const request: ListRequest = {
    options: {
      state: toReadState(q.state),
      locale: firstString(q.locale)?.toLowerCase(),
      where: q.where,
      sort: firstString(q.sort),
      search: q.search,
      timestamps: isFlag(q.timestamps),
      exclude: parseList(q.exclude),
      fallback: isFlag(q.fallback),
    },
    paginate: parsePositiveInt(bag, 'paginate', q.paginate),
    page: parsePositiveInt(bag, 'page', q.page),
    limit: parsePositiveInt(bag, 'limit', q.limit),
    offset: parsePositiveInt(bag, 'offset', q.offset, { min: 0 }),
    count: isFlag(q.count),
    first: isFlag(q.first),
  };
  bag.throwIfAny();
  return request;
}

/** The query of `GET /api/{collection}/trash`; malformed numbers are a 422 naming the parameter. */
export function parseTrashQuery(q: Record<string, unknown>): TrashQuery {
  const bag = new ErrorBag();
  const query: TrashQuery = {
    locale: firstString(q.locale)?.toLowerCase(),
    where: q.where,
    paginate: parsePositiveInt(bag, 'paginate', q.paginate),
    page: parsePositiveInt(bag, 'page', q.page),
    timestamps: isFlag(q.timestamps),
    exclude: parseList(q.exclude),
  };
  bag.throwIfAny();
  return query;
}
