import { builder } from '../../common/builder.ts';
import { RELAY_ARG_DESCRIPTIONS, pageFromArgs } from '../../common/page-info.ts';
import { MAX_PAGE_SIZE } from '../../../../entries/reads/list.ts';
import { DEFAULT_TRASH_PAGE_SIZE, emptyTrash, listTrash, restoreEntry } from '../../../../entries/operations/trash.ts';
import { collectionRead } from '../../common/content-read.ts';
import { checkPaging } from '../../../limits.ts';
import { EntryPageType, EntryType } from './types.ts';

const EmptyTrashPayloadType = builder.objectRef<{ message: string; deleted: number }>('EmptyTrashPayload').implement({
  fields: (t) => ({ message: t.exposeString('message'), deleted: t.exposeInt('deleted', { description: 'How many entries were deleted for good.' }) }),
});

builder.queryFields((t) => ({
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
}));

builder.mutationFields((t) => ({
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
}));
