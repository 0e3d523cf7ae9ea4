import { builder } from '../../common/builder.ts';
import { getEntry } from '../../../../entries/operations/entry.ts';
import { toReadState } from '../../../../entries/types.ts';
import { collectionRead } from '../../common/content-read.ts';
import { EntryType, stateDescription } from './types.ts';

builder.queryFields((t) => ({
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
        state: toReadState(args.state),
        timestamps: true,
        locale: args.locale ?? undefined,
        translationLocale: args.translationLocale ?? undefined,
      }),
  }),
}));
