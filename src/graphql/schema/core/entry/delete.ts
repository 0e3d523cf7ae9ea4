import { builder } from '../../common/builder.ts';
import { deleteEntry } from '../../../../entries/operations/entry.ts';

const MessagePayloadType = builder.objectRef<{ message: string }>('MessagePayload').implement({
  fields: (t) => ({ message: t.exposeString('message') }),
});

builder.mutationFields((t) => ({
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
}));
