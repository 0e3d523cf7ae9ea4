import { builder } from '../../common/builder.ts';
import { updateEntry } from '../../../../entries/operations/entry.ts';
import { EntryType } from './types.ts';

builder.mutationFields((t) => ({
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
}));
