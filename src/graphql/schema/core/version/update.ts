import { builder } from '../../common/builder.ts';
import { updateVersion } from '../../../../entries/versions/operations.ts';
import { EntryVersionType } from './types.ts';

builder.mutationFields((t) => ({
  updateEntryVersion: t.field({
    nullable: true,
    type: EntryVersionType,
    extensions: { ability: 'update' },
    description: 'Sets or clears (null) the label (≤ 255 chars) and description (≤ 2000 chars); an omitted argument is left unchanged.',
    args: {
      collection: t.arg.string({ required: true, description: 'Collection slug.' }),
      uuid: t.arg.id({ required: true }),
      version: t.arg.int({ required: true }),
      label: t.arg.string(),
      description: t.arg.string(),
    },
    resolve: async (_root, args, c) => {
      const patch: Record<string, unknown> = {};
      if (args.label !== undefined) patch.label = args.label;
      if (args.description !== undefined) patch.description = args.description;
      return updateVersion(await c.auth(), args.collection, String(args.uuid), args.version, patch);
    },
  }),
}));
