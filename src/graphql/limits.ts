import { validationFailed } from '../errors.ts';
import { MAX_PAGE_SIZE } from '../entries/reads/list.ts';

/**
 * Paging of the GraphQL list fields (docs/graphql.md, "Limits"). The depth and cost limits, which run
 * before any resolver, are a plugin: src/graphql/plugins/validation/use-query-limits.ts.
 */

export const DEFAULT_PER_PAGE = 25;
export { MAX_PAGE_SIZE };

/** `page` and `perPage` of the typed list queries: 422 naming the argument, as REST names its parameter. */
export function checkPaging(page: number, perPage: number): void {
  const errors: Record<string, string[]> = {};
  if (!Number.isInteger(page) || page < 1) errors.page = ['The page argument must be an integer of at least 1.'];
  if (!Number.isInteger(perPage) || perPage < 1) errors.perPage = ['The perPage argument must be an integer of at least 1.'];
  else if (perPage > MAX_PAGE_SIZE) errors.perPage = [`The perPage argument may not be greater than ${MAX_PAGE_SIZE}.`];
  if (Object.keys(errors).length) throw validationFailed(errors);
}
