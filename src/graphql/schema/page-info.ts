import { builder } from '../builder.ts';

/**
 * The one page convention of every paged list (docs/graphql.md, "Conventions"): the items in `data`
 * and where the page sits in `pageInfo`. Typed per-project lists reuse this type (typed/shared.ts),
 * so a client handles core and typed pages with one fragment. Version lists are cursor connections.
 */
export interface PagePosition {
  total: number;
  currentPage: number;
  perPage: number;
  lastPage: number;
}

export const PageInfoType = builder.objectRef<PagePosition>('PageInfo').implement({
  description: 'Where a page sits in the whole list.',
  fields: (t) => ({
    total: t.exposeInt('total'),
    currentPage: t.exposeInt('currentPage'),
    perPage: t.exposeInt('perPage'),
    lastPage: t.exposeInt('lastPage'),
    hasNextPage: t.boolean({ resolve: (p) => p.currentPage < p.lastPage }),
  }),
});

export const pagePosition = (total: number, currentPage: number, perPage: number): PagePosition => ({
  total,
  currentPage,
  perPage,
  lastPage: Math.max(1, Math.ceil(total / Math.max(1, perPage))),
});

/** Reason on the flat paging fields kept beside `pageInfo` for one release. */
export const FLAT_PAGING_DEPRECATED = 'Use pageInfo (one page convention for every list); removed in the next release.';
