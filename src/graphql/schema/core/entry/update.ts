import { builder } from '../../common/builder.ts';
import { updateEntry } from '../../../../entries/operations/entry.ts';
import { EntryType } from './types.ts';

/** PATCH and PUT are one operation with a mode; the two root fields differ only in it and their text. */
const DESCRIPTIONS = {
  patch: 'Changes only the fields present in data (PATCH semantics). Never publishes.',
  replace: 'Rewrites every field from data; fields not sent are cleared (PUT semantics). Never publishes.',
} as const;

builder.mutationFields((t) => {
  const writeField = (mode: keyof typeof DESCRIPTIONS) =>
    t.field({
      extensions: { ability: 'update' },
      nullable: true,
      type: EntryType,
      description: DESCRIPTIONS[mode],
      args: {
        collection: t.arg.string({ required: true }),
        uuid: t.arg.string({ required: true }),
        data: t.arg({ type: 'JSON', required: true }),
        locale: t.arg.string(),
      },
      resolve: async (_root, args, context) =>
        updateEntry(await context.auth(), args.collection, args.uuid, { data: args.data, locale: args.locale ?? undefined }, mode, { timestamps: true }),
    });
  return { updateEntry: writeField('patch'), replaceEntry: writeField('replace') };
});
