import { MAX_PAGE_SIZE } from '../../../../entries/reads/list.ts';
import { DEFAULT_TRASH_PAGE_SIZE, emptyTrash, listTrash, restoreEntry } from '../../../../entries/operations/trash.ts';
import { checkPaging } from '../../../limits.ts';
import { collectionRead } from '../../common/content-read.ts';
import { RELAY_ARG_DESCRIPTIONS, pageFromArgs } from '../../common/page-info.ts';
import { toNormalisedWhere } from '../convert.ts';
import { typedEntry } from '../model.ts';
import { pageCost } from './page.ts';
import type { CollectionScope, SharedResults } from './scope.ts';

/** The trash of a collection: its list of trashed working drafts. */
export function defineTrashed({ b, slug, label, n, page, io }: CollectionScope): void {
  b.queryField(n.trashed, (t) =>
    t.field({
      type: page,
      nullable: true,
      description: `Trashed ${label} entries (working drafts), most recently trashed first. \`restore${n.type}\` brings one back.`,
      args: {
        where: t.arg({ type: io.where, description: 'Conditions on the working drafts.' }),
        page: t.arg.int({ defaultValue: 1 }),
        perPage: t.arg.int({ defaultValue: DEFAULT_TRASH_PAGE_SIZE, description: `Page size, at most ${MAX_PAGE_SIZE}.` }),
        locale: t.arg.string(),
        first: t.arg.int({ description: RELAY_ARG_DESCRIPTIONS.first }),
        after: t.arg.string({ description: RELAY_ARG_DESCRIPTIONS.after }),
      },
      extensions: {
        ability: 'read',
        ...collectionRead(slug, true),
        complexity: (args: { perPage?: unknown; first?: unknown }) => ({ field: 1, multiplier: pageCost(args, DEFAULT_TRASH_PAGE_SIZE) }),
      },
      resolve: async (_root, args, c) => {
        const { page: pageNo, perPage } = pageFromArgs(args, DEFAULT_TRASH_PAGE_SIZE);
        checkPaging(pageNo, perPage);
        const r = await listTrash(await c.auth(), slug, {
          locale: args.locale?.toLowerCase() ?? undefined,
          where: args.where ? toNormalisedWhere(args.where, io.wherePlan) : undefined,
          paginate: perPage,
          page: pageNo,
          timestamps: true,
        });
        return { data: r.data.map((e) => typedEntry(e, 'draft')), total: r.total, currentPage: r.page, perPage: r.perPage, lastPage: Math.max(1, Math.ceil(r.total / r.perPage)) };
      },
    }),
  );
}

/** Bringing one trashed entry back, and emptying the trash for good. */
export function defineTrashMutations({ b, slug, label, n, entry }: CollectionScope, { trashEmptied }: SharedResults): void {
  b.mutationField(n.restore, (t) =>
    t.field({
      type: entry,
      nullable: true,
      description: 'Brings a trashed entry back; singleton and unique rules are checked again (422). Returns the working draft.',
      extensions: { ability: 'update' },
      args: { uuid: t.arg.id({ required: true }) },
      resolve: async (_root, args, c) => typedEntry(await restoreEntry(await c.auth(), slug, String(args.uuid), { timestamps: true }), 'draft'),
    }),
  );
  b.mutationField(n.emptyTrash, (t) =>
    t.field({
      type: trashEmptied,
      nullable: true,
      description: `Deletes every trashed ${label} entry for good.`,
      extensions: { ability: 'delete' },
      resolve: async (_root, _args, c) => emptyTrash(await c.auth(), slug),
    }),
  );
}
