import { builder } from '../builder.ts';
import { FLAT_PAGING_DEPRECATED, PageInfoType, RELAY_ARG_DESCRIPTIONS, edgeType, edgesOf, pageFromArgs, pagePosition } from './page-info.ts';
import { isAppError } from '../../errors.ts';
import type { EntryResource } from '../../content/types.ts';
import { createEntry, deleteEntry, getEntry, updateEntry } from '../../content/operations.ts';
import { linkTranslation } from '../../content/translations.ts';
import { listEntries, MAX_PAGE_SIZE } from '../../content/list.ts';
import { DEFAULT_TRASH_PAGE_SIZE, emptyTrash, listTrash, restoreEntry } from '../../content/trash.ts';
import { parseState } from '../../content/query.ts';
import { EntryWhereInput, toWhereObject } from './where.ts';
import { collectionRead } from '../content-read.ts';
import { selects } from '../selection.ts';
import { checkPaging, DEFAULT_PER_PAGE } from '../limits.ts';
import { slicePosition } from '../slice-paging.ts';

/**
 * The generic (collection-agnostic) entry API: `fields` is JSON in the REST shape. The per-project
 * typed schema lives in src/graphql/typed. Other domains add fields to `EntryType` from their own files
 * (`builder.objectFields(EntryType, ...)`), e.g. versions.
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

interface EntryPage {
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

const EntryPageType = builder.objectRef<EntryPage>('EntryPage').implement({
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

interface LinkPayload {
  message: string;
  translation_group_id: number;
}

const LinkPayloadType = builder.objectRef<LinkPayload>('LinkEntryTranslationPayload').implement({
  fields: (t) => ({
    message: t.exposeString('message'),
    translationGroupId: t.int({ resolve: (p) => p.translation_group_id }),
  }),
});

const MessagePayloadType = builder.objectRef<{ message: string }>('MessagePayload').implement({
  fields: (t) => ({ message: t.exposeString('message') }),
});

const EmptyTrashPayloadType = builder.objectRef<{ message: string; deleted: number }>('EmptyTrashPayload').implement({
  fields: (t) => ({ message: t.exposeString('message'), deleted: t.exposeInt('deleted', { description: 'How many entries were deleted for good.' }) }),
});

const stateDescription = '`published` (default; invalid values also read published) or `draft`.';

builder.queryFields((t) => ({
  entries: t.field({
    nullable: true,
    // The page's selection is paid once per entry it can hold (src/graphql/plugins/validation/use-query-limits.ts), as typed lists are.
    extensions: {
      ability: 'read',
      ...collectionRead({ argument: 'collection' }),
      complexity: (args: { perPage?: unknown; first?: unknown }) => {
        const size = args.first ?? args.perPage;
        return { field: 1, multiplier: typeof size === 'number' ? Math.max(1, Math.min(size, MAX_PAGE_SIZE)) : 25 };
      },
    },
    type: EntryPageType,
    description: `Entries of a collection, paginated (perPage 1..${MAX_PAGE_SIZE}, default 25). \`where\` takes the same object as the REST \`where[...]\` query; \`sort\` is "field:asc,other:desc". A singleton gives a page with its one entry.`,
    args: {
      collection: t.arg.string({ required: true }),
      state: t.arg.string({ description: stateDescription }),
      locale: t.arg.string(),
      where: t.arg({ type: 'JSON', description: 'The object REST builds from `where[...]`, e.g. { price: { gt: 10 }, or: [...] }.' }),
      filter: t.arg({ type: [EntryWhereInput], description: 'The same filter as typed conditions; ANDed with `where`.' }),
      sort: t.arg.string(),
      page: t.arg.int(),
      perPage: t.arg.int(),
      exclude: t.arg.stringList(),
      first: t.arg.int({ description: RELAY_ARG_DESCRIPTIONS.first }),
      after: t.arg.string({ description: RELAY_ARG_DESCRIPTIONS.after }),
    },
    resolve: async (_root, args, context, info) => {
      // Out-of-range paging answers 422 naming the argument, as typed lists and REST do (no silent clamp).
      const { page, perPage } = pageFromArgs(args, DEFAULT_PER_PAGE);
      checkPaging(page, perPage);
      const ctx = await context.auth();
      const typed = toWhereObject(args.filter);
      const where = args.where != null && typed ? { and: [args.where, typed] } : (args.where ?? typed);
      try {
        const result = await listEntries(ctx, args.collection, {
          withTotal: selects(info, [], ['total', 'lastPage']) || selects(info, ['pageInfo'], ['total', 'lastPage']),
          state: parseState(args.state),
          locale: args.locale?.toLowerCase() ?? undefined,
          where: where ?? undefined,
          sort: args.sort ?? undefined,
          paginate: perPage,
          page,
          timestamps: true,
          exclude: args.exclude ?? undefined,
        });
        if (result.kind === 'page') return { data: result.data, total: result.total, currentPage: page, perPage };
        if (result.kind === 'slice') {
          const at = slicePosition(page, perPage, result.hasMore);
          return { data: result.data, total: at.total, currentPage: page, perPage, knownLastPage: at.lastPage };
        }
        if (result.kind === 'one') return { data: [result.entry], total: 1, currentPage: 1, perPage };
        return { data: [], total: 0, currentPage: page, perPage };
      } catch (err) {
        // A singleton without an entry for the locale is an empty page here, not an error.
        if (isAppError(err) && err.code === 'NOT_FOUND' && err.message === 'Entry not found.') return { data: [], total: 0, currentPage: 1, perPage };
        throw err;
      }
    },
  }),
  trashedEntries: t.field({
    nullable: true,
    extensions: { ability: 'read', ...collectionRead({ argument: 'collection' }, true) },
    type: EntryPageType,
    description: `Trashed entries of a collection (GET /api/{collection}/trash): working drafts with \`deletedAt\`, most recently trashed first (perPage 1..${MAX_PAGE_SIZE}, default ${DEFAULT_TRASH_PAGE_SIZE}).`,
    args: {
      collection: t.arg.string({ required: true }),
      locale: t.arg.string(),
      where: t.arg({ type: 'JSON', description: 'The REST `where` object, on the working drafts.' }),
      page: t.arg.int(),
      perPage: t.arg.int(),
      first: t.arg.int({ description: RELAY_ARG_DESCRIPTIONS.first }),
      after: t.arg.string({ description: RELAY_ARG_DESCRIPTIONS.after }),
    },
    resolve: async (_root, args, context) => {
      const { page, perPage } = pageFromArgs(args, DEFAULT_TRASH_PAGE_SIZE);
      checkPaging(page, perPage);
      const r = await listTrash(await context.auth(), args.collection, {
        locale: args.locale?.toLowerCase() ?? undefined,
        where: args.where ?? undefined,
        paginate: perPage,
        page,
        timestamps: true,
      });
      return { data: r.data, total: r.total, currentPage: r.page, perPage: r.perPage };
    },
  }),
  entry: t.field({
    nullable: true,
    extensions: { ability: 'read', ...collectionRead({ argument: 'collection' }) },
    type: EntryType,
    description: 'One entry by UUID. NOT_FOUND when it does not exist or, for published reads, was never published.',
    args: {
      collection: t.arg.string({ required: true }),
      uuid: t.arg.string({ required: true }),
      state: t.arg.string({ description: stateDescription }),
      locale: t.arg.string(),
      translationLocale: t.arg.string(),
    },
    resolve: async (_root, args, context) =>
      getEntry(await context.auth(), args.collection, args.uuid, {
        state: parseState(args.state),
        timestamps: true,
        locale: args.locale ?? undefined,
        translationLocale: args.translationLocale ?? undefined,
      }),
  }),
}));

builder.mutationFields((t) => ({
  createEntry: t.field({
    extensions: { ability: 'create' },
    nullable: true,
    type: EntryType,
    description: 'Creates an entry (POST /api/{collection}); state "published" publishes it as version 1.',
    args: {
      collection: t.arg.string({ required: true }),
      data: t.arg({ type: 'JSON', required: true }),
      locale: t.arg.string(),
      state: t.arg.string(),
    },
    resolve: async (_root, args, context) =>
      createEntry(await context.auth(), args.collection, { data: args.data, locale: args.locale ?? undefined, state: args.state ?? undefined }, { timestamps: true }),
  }),
  updateEntry: t.field({
    extensions: { ability: 'update' },
    nullable: true,
    type: EntryType,
    description: 'Changes only the fields present in data (PATCH semantics). Never publishes.',
    args: {
      collection: t.arg.string({ required: true }),
      uuid: t.arg.string({ required: true }),
      data: t.arg({ type: 'JSON', required: true }),
      locale: t.arg.string(),
    },
    resolve: async (_root, args, context) =>
      updateEntry(await context.auth(), args.collection, args.uuid, { data: args.data, locale: args.locale ?? undefined }, 'patch', { timestamps: true }),
  }),
  replaceEntry: t.field({
    extensions: { ability: 'update' },
    nullable: true,
    type: EntryType,
    description: 'Rewrites every field from data; fields not sent are cleared (PUT semantics). Never publishes.',
    args: {
      collection: t.arg.string({ required: true }),
      uuid: t.arg.string({ required: true }),
      data: t.arg({ type: 'JSON', required: true }),
      locale: t.arg.string(),
    },
    resolve: async (_root, args, context) =>
      updateEntry(await context.auth(), args.collection, args.uuid, { data: args.data, locale: args.locale ?? undefined }, 'replace', { timestamps: true }),
  }),
  deleteEntry: t.field({
    extensions: { ability: 'delete' },
    nullable: true,
    type: MessagePayloadType,
    description: 'Moves the entry to the trash; force deletes it and its versions for good.',
    args: {
      collection: t.arg.string({ required: true }),
      uuid: t.arg.string({ required: true }),
      force: t.arg.boolean(),
    },
    resolve: async (_root, args, context) => deleteEntry(await context.auth(), args.collection, args.uuid, args.force ?? false),
  }),
  restoreEntry: t.field({
    extensions: { ability: 'update' },
    nullable: true,
    type: EntryType,
    description: 'Brings a trashed entry back (POST /api/{collection}/{uuid}/restore); singleton and unique rules are checked again. Returns the working draft.',
    args: {
      collection: t.arg.string({ required: true }),
      uuid: t.arg.string({ required: true }),
    },
    resolve: async (_root, args, context) => restoreEntry(await context.auth(), args.collection, args.uuid, { timestamps: true }),
  }),
  emptyTrash: t.field({
    extensions: { ability: 'delete' },
    nullable: true,
    type: EmptyTrashPayloadType,
    description: "Deletes every trashed entry of the collection for good (DELETE /api/{collection}/trash).",
    args: { collection: t.arg.string({ required: true }) },
    resolve: async (_root, args, context) => emptyTrash(await context.auth(), args.collection),
  }),
  linkEntryTranslation: t.field({
    extensions: { ability: 'update' },
    nullable: true,
    type: LinkPayloadType,
    args: {
      collection: t.arg.string({ required: true }),
      uuid: t.arg.string({ required: true }),
      translationEntryUuid: t.arg.string({ required: true }),
    },
    resolve: async (_root, args, context) =>
      linkTranslation(await context.auth(), args.collection, args.uuid, { translation_entry_uuid: args.translationEntryUuid }),
  }),
}));
