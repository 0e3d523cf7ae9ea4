import { builder } from '../../common/builder.ts';
import { FLAT_PAGING_DEPRECATED, PageInfoType, edgeType, edgesOf, pagePosition } from '../../common/page-info.ts';
import type { EntryResource } from '../../../../entries/types.ts';

/**
 * The generic (collection-agnostic) entry API: `fields` is JSON in the REST shape. The per-project
 * typed schema lives in src/graphql/schema/typed. Other domains add fields to `EntryType` from their
 * own files (`builder.objectFields(EntryType, ...)`), e.g. versions.
 */
export const EntryType = builder.objectRef<EntryResource>('Entry').implement({
  description: 'A content entry: the same resource the REST API returns.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    uuid: t.exposeString('uuid'),
    locale: t.exposeString('locale'),
    state: t.exposeString('state', { description: '`draft` or `published`.' }),
    publishedAt: t.field({ type: 'DateTime',  nullable: true, resolve: (e) => e.published_at }),
    publishedVersionId: t.int({ nullable: true, resolve: (e) => e.published_version_id }),
    publishedVersionNumber: t.int({ nullable: true, resolve: (e) => e.published_version_number }),
    isDraftDirty: t.boolean({ resolve: (e) => e.is_draft_dirty }),
    fields: t.field({
      type: 'JSON',
      description: 'Field values by field name; relations are nested entries (one level), media are asset objects.',
      resolve: (e) => e.fields,
    }),
    createdAt: t.field({ type: 'DateTime',  nullable: true, resolve: (e) => e.created_at ?? null }),
    updatedAt: t.field({ type: 'DateTime',  nullable: true, resolve: (e) => e.updated_at ?? null }),
    deletedAt: t.field({ type: 'DateTime',  nullable: true, description: 'When the entry went to the trash; set in `trashedEntries` only.', resolve: (e) => e.deleted_at ?? null }),
  }),
});

export interface EntryPage {
  data: EntryResource[];
  total: number;
  currentPage: number;
  perPage: number;
  /** Set when no total was counted (nothing selected it): the last page as far as the page's look-ahead row tells. */
  knownLastPage?: number;
}

const pageOf = (p: EntryPage) =>
  p.knownLastPage !== undefined
    ? { total: p.total, currentPage: p.currentPage, perPage: p.perPage, lastPage: p.knownLastPage, count: p.data.length }
    : pagePosition(p.total, p.currentPage, p.perPage, p.data.length);

const EntryEdgeType = edgeType('EntryEdge', EntryType);

export const EntryPageType = builder.objectRef<EntryPage>('EntryPage').implement({
  description: 'One page of entries: `data` and `pageInfo` (page + perPage paging), or the same page as `edges` (Relay: first + after).',
  fields: (t) => ({
    data: t.field({ type: [EntryType], extensions: { complexity: { field: 0, multiplier: 1 } }, resolve: (p) => p.data }),
    edges: t.field({ type: [EntryEdgeType], extensions: { complexity: { field: 0, multiplier: 1 } }, resolve: (p) => edgesOf(p.data, p.currentPage, p.perPage) }),
    pageInfo: t.field({ type: PageInfoType, resolve: pageOf }),
    total: t.exposeInt('total', { deprecationReason: FLAT_PAGING_DEPRECATED }),
    currentPage: t.exposeInt('currentPage', { deprecationReason: FLAT_PAGING_DEPRECATED }),
    perPage: t.exposeInt('perPage', { deprecationReason: FLAT_PAGING_DEPRECATED }),
    lastPage: t.int({ deprecationReason: FLAT_PAGING_DEPRECATED, resolve: (p) => Math.max(1, Math.ceil(p.total / p.perPage)) }),
    hasMorePages: t.boolean({ deprecationReason: FLAT_PAGING_DEPRECATED, resolve: (p) => p.currentPage < pageOf(p).lastPage }),
  }),
});

export const stateDescription = '`published` (default; invalid values also read published) or `draft`.';
