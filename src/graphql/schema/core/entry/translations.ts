import { builder } from '../../common/builder.ts';
import { linkTranslation } from '../../../../entries/values/translations.ts';

interface LinkPayload {
  message: string;
  translation_group_id: number;
}

const LinkPayloadType = builder.objectRef<LinkPayload>('LinkEntryTranslationPayload').implement({
  fields: (t) => ({
    message: t.exposeString('message'),
    translationGroupId: t.int({ resolve: (p) => p.translation_group_id }),
  }),
});

builder.mutationFields((t) => ({
  linkEntryTranslation: t.field({
    extensions: { ability: 'update' },
    nullable: true,
    type: LinkPayloadType,
    args: {
      collection: t.arg.string({ required: true }),
      uuid: t.arg.string({ required: true }),
      translationEntryUuid: t.arg.string({ required: true }),
    },
    resolve: async (_root, args, context) =>
      linkTranslation(await context.auth(), args.collection, args.uuid, { translation_entry_uuid: args.translationEntryUuid }),
  }),
}));
