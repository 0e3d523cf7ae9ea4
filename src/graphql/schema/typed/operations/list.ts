import { listEntriesPage, listEntriesSlice, openEntryList } from '../../../../entries/reads/list.ts';
import { DEFAULT_PER_PAGE, checkPaging } from '../../../limits.ts';
import { collectionRead } from '../../common/content-read.ts';
import { RELAY_ARG_DESCRIPTIONS, pageFromArgs } from '../../common/page-info.ts';
import { isOnlyRootField, selects, selectsBelow } from '../../common/selection.ts';
import { slicePosition } from '../../common/slice-paging.ts';
import { toNormalisedWhere, toSortString } from '../convert.ts';
import { typedEntry } from '../model.ts';
import { pageCost } from './page.ts';
import type { CollectionScope } from './scope.ts';
import { readInView } from '../../../../releases/operations/preview.ts';
import { RELEASE_ARG } from './release-view.ts';

/**
 * The typed entry fields that show an entry's metadata (src/graphql/schema/typed/entry-types.ts)
 * rather than its id, UUID or field values: a list whose entries and linked entries select none of
 * them reads its linked entries slim (src/entries/reads/read-rows.ts, RowShape).
 */
const METADATA_FIELDS = ['locale', 'state', 'publishedAt', 'createdAt', 'updatedAt', 'publishedVersionNumber', 'isDraftDirty', 'resolvedLocale'] as const;

/** A collection's list query: filtered, sorted and paged in the database, as REST's list is. */
export function defineList({ b, slug, label, n, page, io, entryState }: CollectionScope): void {
  b.queryField(n.list, (t) =>
    t.field({
      type: page,
      nullable: true,
      description: `Entries of ${label}: filtered, sorted and paged in the database.`,
      args: {
        where: t.arg({ type: io.where }),
        sort: t.arg({ type: [io.sort] }),
        page: t.arg.int({ defaultValue: 1 }),
        perPage: t.arg.int({ defaultValue: DEFAULT_PER_PAGE, description: `Page size, at most 100.` }),
        state: t.arg({ type: entryState, defaultValue: 'published' }),
        locale: t.arg.string(),
        search: t.arg.string({
          description: 'Full-text search over the text-like fields: words (stemmed in the entry\'s language), "a phrase", -excluded, prefix*, `or` between alternatives. Ranked by relevance (searchScore) unless sort is given.',
        }),
        fallback: t.arg.boolean({ description: 'Per translation group, the entry of the first locale along the fallback chain of `locale` (the default locale when omitted); `resolvedLocale` says which answered.' }),
        release: t.arg.id({ description: RELEASE_ARG }),
        first: t.arg.int({ description: RELAY_ARG_DESCRIPTIONS.first }),
        after: t.arg.string({ description: RELAY_ARG_DESCRIPTIONS.after }),
      },
      // The page's selection is paid once per entry it can hold.
      extensions: {
        ability: 'read',
        ...collectionRead(slug),
        complexity: (args: { perPage?: unknown; first?: unknown }) => ({ field: 1, multiplier: pageCost(args, DEFAULT_PER_PAGE) }),
      },
      resolve: async (_root, args, c, info) => {
        const { page: pageNo, perPage } = pageFromArgs(args, DEFAULT_PER_PAGE);
        checkPaging(pageNo, perPage);
        return readInView(await c.auth(), { release: args.release, state: args.state }, async (ctx, state) => {
          const list = await openEntryList(ctx, slug, {
            state,
            locale: args.locale?.toLowerCase() ?? undefined,
            fallback: args.fallback ?? false,
            where: args.where ? toNormalisedWhere(args.where, io.wherePlan) : undefined,
            sort: toSortString(args.sort),
            search: args.search ?? undefined,
            timestamps: true,
            // Linked rows go to the request's loader: slim only when no other root field may read them there.
            linked: isOnlyRootField(info) && !selectsBelow(info, ['data'], METADATA_FIELDS) ? 'slim' : 'full',
          });
          const paging = { page: pageNo, perPage };
          if (!selects(info, ['pageInfo'], ['total', 'lastPage'])) {
            const r = await listEntriesSlice(list, paging);
            return { data: r.data.map((e) => typedEntry(e, state)), ...slicePosition(r.page, r.perPage, r.hasMore) };
          }
          const r = await listEntriesPage(list, paging);
          return {
            data: r.data.map((e) => typedEntry(e, state)),
            total: r.total,
            currentPage: r.page,
            perPage: r.perPage,
            lastPage: Math.max(1, Math.ceil(r.total / r.perPage)),
          };
        });
      },
    }),
  );
}
