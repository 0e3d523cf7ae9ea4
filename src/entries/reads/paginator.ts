import qs from 'qs';

export interface LaravelPage<T> {
  data: T[];
  links: { first: string; last: string; prev: string | null; next: string | null };
  meta: { current_page: number; from: number | null; last_page: number; path: string; per_page: number; to: number | null; total: number };
}

/**
 * Laravel's resource-collection paginator (docs/entries.md). Links keep the request's other query
 * parameters and change only `page`; `path` is the request path (absolute when PUBLIC_URL is set).
 */
export function laravelPage<T>(data: T[], p: { total: number; page: number; perPage: number; path: string; query: Record<string, unknown> }): LaravelPage<T> {
  const lastPage = Math.max(1, Math.ceil(p.total / p.perPage));
  const link = (page: number) => `${p.path}?${qs.stringify({ ...p.query, page }, { encodeValuesOnly: true })}`;
  const from = data.length ? (p.page - 1) * p.perPage + 1 : null;
  return {
    data,
    links: {
      first: link(1),
      last: link(lastPage),
      prev: p.page > 1 ? link(Math.min(p.page - 1, lastPage)) : null,
      next: p.page < lastPage ? link(p.page + 1) : null,
    },
    meta: {
      current_page: p.page,
      from,
      last_page: lastPage,
      path: p.path,
      per_page: p.perPage,
      to: from === null ? null : from + data.length - 1,
      total: p.total,
    },
  };
}
