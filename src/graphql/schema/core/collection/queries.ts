import { builder } from '../../common/builder.ts';
import { ProjectType } from '../project.ts';
import { getCollection, listCollections, serializeCollection } from '../../../../collections/operations.ts';
import { CONTENT_READ } from '../../common/content-read.ts';
import { CollectionType } from './types.ts';

builder.queryFields((t) => ({
  collections: t.field({
    nullable: true,
    extensions: { ability: 'read', ...CONTENT_READ },
    type: [CollectionType],
    description: 'Collections of the project in order, with their fields.',
    resolve: async (_root, _args, context) =>
      (await listCollections(await context.auth())).map((c) => serializeCollection(c, { withFields: true })),
  }),
  collection: t.field({
    nullable: true,
    extensions: { ability: 'read', ...CONTENT_READ },
    type: CollectionType,
    args: { slug: t.arg.string({ required: true }) },
    resolve: async (_root, args, context) => serializeCollection(await getCollection(await context.auth(), args.slug), { withFields: true }),
  }),
}));

builder.objectField(ProjectType, 'collections', (t) =>
  t.field({
    type: [CollectionType],
    // Needs `read`: null with its error when a mutation's result (e.g. addProjectLocale) is read by an admin-only token.
    nullable: true,
    description: 'The content model (same as the root collections field).',
    resolve: async (_project, _args, context) =>
      (await listCollections(await context.auth())).map((c) => serializeCollection(c, { withFields: true })),
  }),
);
