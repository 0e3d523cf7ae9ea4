import { builder } from '../../common/builder.ts';
import {
  createCollection,
  deleteCollection,
  reorderCollectionsReturning,
  serializeCollection,
  updateCollection,
} from '../../../../collections/operations.ts';
import { CollectionType, CreateCollectionInput, OrderItemInput, UpdateCollectionInput, fieldDoc } from './types.ts';

builder.mutationFields((t) => ({
  createCollection: t.field({
    extensions: { ability: 'admin' },
    nullable: true,
    type: CollectionType,
    args: { input: t.arg({ type: CreateCollectionInput, required: true }) },
    resolve: async (_root, { input }, context) => {
      const body = { name: input.name, slug: input.slug, is_singleton: input.isSingleton ?? undefined, fields: input.fields?.map(fieldDoc) };
      return serializeCollection(await createCollection(await context.auth(), body), { withFields: true });
    },
  }),
  updateCollection: t.field({
    extensions: { ability: 'admin' },
    nullable: true,
    type: CollectionType,
    args: { slug: t.arg.string({ required: true }), input: t.arg({ type: UpdateCollectionInput, required: true }) },
    resolve: async (_root, { slug, input }, context) =>
      serializeCollection(await updateCollection(await context.auth(), slug, input), { withFields: true }),
  }),
  deleteCollection: t.boolean({
    extensions: { ability: 'admin' },
    nullable: true,
    description: 'Deletes the collection with its fields and entries. confirmSlug must repeat slug.',
    args: { slug: t.arg.string({ required: true }), confirmSlug: t.arg.string({ required: true }) },
    resolve: async (_root, { slug, confirmSlug }, context) => {
      await deleteCollection(await context.auth(), slug, { slug: confirmSlug });
      return true;
    },
  }),
  reorderCollections: t.field({
    extensions: { ability: 'admin' },
    nullable: true,
    type: [CollectionType],
    description: 'Sets collection order; unknown uuids are skipped. Returns the collections in their new order.',
    args: { items: t.arg({ type: [OrderItemInput], required: true }) },
    // Built from what the write returned: reading the list again would need `read`, after the commit.
    resolve: async (_root, { items }, context) =>
      (await reorderCollectionsReturning(await context.auth(), { collections: items })).map((c) => serializeCollection(c, { withFields: true })),
  }),
}));
