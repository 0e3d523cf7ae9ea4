import type { ObjectRef } from '@pothos/core';
import { builder } from './builder.ts';
import { validationFailed } from '../../../errors.ts';
import { MAX_PAGE_SIZE } from '../../../entries/reads/list.ts';

/**
 * The page convention of every paged list (docs/graphql.md, "Paging"): the items in `data` and where
 * the page sits in `pageInfo`, and beside them the same page as a Relay connection (`edges { cursor
 * node }`, `pageInfo { hasNextPage endCursor }`, `first` / `after`), so Apollo's and urql's cursor
 * pagination helpers work on every list. Typed per-project lists reuse these types
 * (schema/typed/shared.ts), so a client handles core and typed pages with one fragment. Version lists
 * are cursor connections with the same Relay fields (schema/core/version/types.ts).
 */
export interface PagePosition {
  total: number;
  currentPage: number;
  perPage: number;
  lastPage: number;
  /** Items on this page: where the page's cursors end. */
  count: number;
}

/**
 * A cursor of a paged list is the item's position in the list, opaque to clients. Like a page
 * number it moves when items before it are added or removed; version cursors (version numbers) do not.
 */
export const positionCursor = (index: number): string => Buffer.from(`position:${index}`).toString('base64url');

function positionOf(cursor: string): number | undefined {
  const m = /^position:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m ? Number(m[1]) : undefined;
}

const firstIndex = (p: PagePosition) => (p.currentPage - 1) * p.perPage;

export const PageInfoType = builder.objectRef<PagePosition>('PageInfo').implement({
  description: 'Where a page sits in the whole list (page style), and its cursors (Relay style).',
  fields: (t) => ({
    total: t.exposeInt('total'),
    currentPage: t.exposeInt('currentPage'),
    perPage: t.exposeInt('perPage'),
    lastPage: t.exposeInt('lastPage'),
    hasNextPage: t.boolean({ resolve: (p) => p.currentPage < p.lastPage }),
    hasPreviousPage: t.boolean({ resolve: (p) => p.currentPage > 1 }),
    startCursor: t.string({ nullable: true, description: 'Cursor of the first item of the page; null when the page is empty.', resolve: (p) => (p.count > 0 ? positionCursor(firstIndex(p)) : null) }),
    endCursor: t.string({
      nullable: true,
      description: 'Pass as `after` (with the same `first`) for the next page; null when the page is empty.',
      resolve: (p) => (p.count > 0 ? positionCursor(firstIndex(p) + p.count - 1) : null),
    }),
  }),
});

export const pagePosition = (total: number, currentPage: number, perPage: number, count: number): PagePosition => ({
  total,
  currentPage,
  perPage,
  lastPage: Math.max(1, Math.ceil(total / Math.max(1, perPage))),
  count,
});

/** One item of a page with its cursor. */
export interface Edge<T> {
  cursor: string;
  node: T;
}

/** A page's items as Relay edges: each cursor is the item's position in the whole list. */
export const edgesOf = <T>(data: readonly T[], currentPage: number, perPage: number): Edge<T>[] =>
  data.map((node, i) => ({ cursor: positionCursor((currentPage - 1) * perPage + i), node }));

/** `<Name>Edge { cursor node }` of a core list. */
export const edgeType = <T>(name: string, node: ObjectRef<typeof builder.$inferSchemaTypes, T>) =>
  builder.objectRef<Edge<T>>(name).implement({
    fields: (t) => ({
      cursor: t.exposeString('cursor'),
      // The generic T is opaque to Pothos' resolver typing; the ref ties it to the node type.
      node: t.field({ type: node, resolve: (e) => e.node as never }),
    }),
  });

/** Relay's arguments, beside `page` / `perPage`. */
export const RELAY_ARG_DESCRIPTIONS = {
  first: `Page size under its Relay name (1..${MAX_PAGE_SIZE}); wins over perPage.`,
  after: 'Read the items after this cursor (the endCursor of a page read with the same first).',
} as const;

/** The paging arguments a list received: page style, Relay style, or a mix with `first` as the page size. */
export interface PagingArgs {
  page?: number | null;
  perPage?: number | null;
  first?: number | null;
  after?: string | null;
}

/**
 * The page a list reads. `first` is `perPage` under its Relay name (it wins when both are given);
 * `after` is a cursor of this list, and the page starts right after it, so `after: endCursor` with
 * the same `first` reads the next page. A cursor that does not end a page of `first` items (taken
 * with another `first`) is refused rather than answered with an overlapping page. 422 naming the
 * argument, as `page` / `perPage` out of range are.
 */
export function pageFromArgs(args: PagingArgs, defaultPerPage: number): { page: number; perPage: number } {
  const perPage = args.first ?? args.perPage ?? defaultPerPage;
  if (args.first !== undefined && args.first !== null && (!Number.isInteger(args.first) || args.first < 1 || args.first > MAX_PAGE_SIZE)) {
    throw validationFailed({ first: [`The first argument must be between 1 and ${MAX_PAGE_SIZE}.`] });
  }
  if (args.after === undefined || args.after === null) return { page: args.page ?? 1, perPage };
  if (args.page !== undefined && args.page !== null && args.page !== 1) throw validationFailed({ after: ['Give either page or after, not both.'] });
  const position = positionOf(args.after);
  if (position === undefined) throw validationFailed({ after: ['The after cursor is not valid.'] });
  const start = position + 1;
  if (perPage < 1 || start % perPage !== 0) {
    throw validationFailed({ after: ['The after cursor does not end a page of this size: pass the endCursor of a page read with the same first.'] });
  }
  return { page: start / perPage + 1, perPage };
}

/**
 * For lists whose operation applies its own defaults and bounds to `page` / `perPage`: those pass
 * through untouched unless Relay arguments are given.
 */
export const pageArgsFor = (args: PagingArgs, defaultPerPage: number): { page?: number; perPage?: number } =>
  args.first != null || args.after != null ? pageFromArgs(args, defaultPerPage) : { page: args.page ?? undefined, perPage: args.perPage ?? undefined };

/** Reason on the flat paging fields kept beside `pageInfo` for one release. */
export const FLAT_PAGING_DEPRECATED = 'Use pageInfo (one page convention for every list); removed in the next release.';
