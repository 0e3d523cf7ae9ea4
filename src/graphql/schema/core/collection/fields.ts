import { builder } from '../../common/builder.ts';
import {
  createField,
  deleteField,
  reorderFieldsReturning,
  serializeCollection,
  serializeField,
  updateField,
} from '../../../../collections/operations.ts';
import { CollectionFieldType, CollectionType, FieldInput, OrderItemInput, fieldDoc } from './types.ts';

builder.mutationFields((t) => ({
  createField: t.field({
    extensions: { ability: 'admin' },
    nullable: true,
    type: CollectionFieldType,
    args: { collection: t.arg.string({ required: true, description: 'Collection slug.' }), input: t.arg({ type: FieldInput, required: true }) },
    resolve: async (_root, { collection, input }, context) => serializeField(await createField(await context.auth(), collection, fieldDoc(input))),
  }),
  updateField: t.field({
    extensions: { ability: 'admin' },
    nullable: true,
    type: CollectionFieldType,
    args: {
      collection: t.arg.string({ required: true }),
      uuid: t.arg.string({ required: true }),
      input: t.arg({ type: FieldInput, required: true }),
    },
    resolve: async (_root, { collection, uuid, input }, context) =>
      serializeField(await updateField(await context.auth(), collection, uuid, fieldDoc(input))),
  }),
  deleteField: t.boolean({
    extensions: { ability: 'admin' },
    nullable: true,
    args: { collection: t.arg.string({ required: true }), uuid: t.arg.string({ required: true }) },
    resolve: async (_root, { collection, uuid }, context) => {
      await deleteField(await context.auth(), collection, uuid);
      return true;
    },
  }),
  reorderFields: t.field({
    extensions: { ability: 'admin' },
    nullable: true,
    type: CollectionType,
    description: 'Sets field order within the collection; unknown uuids are skipped. Returns the collection.',
    args: { collection: t.arg.string({ required: true }), items: t.arg({ type: [OrderItemInput], required: true }) },
    resolve: async (_root, { collection, items }, context) =>
      serializeCollection(await reorderFieldsReturning(await context.auth(), collection, { fields: items }), { withFields: true }),
  }),
}));
