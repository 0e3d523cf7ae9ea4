import { builder } from '../../common/builder.ts';
import { RELAY_ARG_DESCRIPTIONS, pageFromArgs } from '../../common/page-info.ts';
import { findFirstEntry, listEntriesPage, listEntriesSlice, MAX_PAGE_SIZE, openEntryList } from '../../../../entries/reads/list.ts';
import { toReadState } from '../../../../entries/types.ts';
import { EntryWhereInput, toWhereObject } from './where.ts';
import { collectionRead } from '../../common/content-read.ts';
import { selects } from '../../common/selection.ts';
import { checkPaging, DEFAULT_PER_PAGE } from '../../../limits.ts';
import { slicePosition } from '../../common/slice-paging.ts';
import { EntryPageType, stateDescription } from './types.ts';

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
      const list = await openEntryList(ctx, args.collection, {
        state: toReadState(args.state),
        locale: args.locale?.toLowerCase() ?? undefined,
        where: where ?? undefined,
        sort: args.sort ?? undefined,
        timestamps: true,
        exclude: args.exclude ?? undefined,
      });
      if (list.isSingleton) {
        // A singleton gives a page with its one entry, or an empty page when the locale has none.
        const entry = await findFirstEntry(list);
        return entry ? { data: [entry], total: 1, currentPage: 1, perPage } : { data: [], total: 0, currentPage: 1, perPage };
      }
      const paging = { page, perPage };
      if (selects(info, [], ['total', 'lastPage']) || selects(info, ['pageInfo'], ['total', 'lastPage'])) {
        const result = await listEntriesPage(list, paging);
        return { data: result.data, total: result.total, currentPage: page, perPage };
      }
      const result = await listEntriesSlice(list, paging);
      const at = slicePosition(page, perPage, result.hasMore);
      return { data: result.data, total: at.total, currentPage: page, perPage, knownLastPage: at.lastPage };
    },
  }),
}));
