import { builder } from '../../common/builder.ts';
import { createEntry } from '../../../../entries/operations/entry.ts';
import { EntryType } from './types.ts';

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
}));
