import { builder } from '../shared/builder.ts';
import { ProjectType } from './project.ts';
import {
  createCollection,
  createField,
  deleteCollection,
  deleteField,
  getCollection,
  listCollections,
  reorderCollectionsReturning,
  reorderFieldsReturning,
  serializeCollection,
  serializeField,
  updateCollection,
  updateField,
  type CollectionResource,
  type FieldResource,
} from '../../../collections/operations.ts';
import { CONTENT_READ } from '../shared/content-read.ts';

/** Collections and fields admin: the GraphQL twin of src/rest/collection-routes.ts (same operations). */

export const CollectionFieldType = builder.objectRef<FieldResource>('CollectionField').implement({
  description: 'A field of a collection. Group children follow their group and carry parentFieldId.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Internal id (what parentFieldId refers to).' }),
    uuid: t.exposeString('uuid'),
    type: t.exposeString('type'),
    label: t.exposeString('label'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    placeholder: t.exposeString('placeholder', { nullable: true }),
    options: t.field({ type: 'JSON', resolve: (f) => f.options }),
    validations: t.field({ type: 'JSON', resolve: (f) => f.validations }),
    order: t.exposeInt('order'),
    parentFieldId: t.int({ nullable: true, resolve: (f) => f.parent_field_id }),
  }),
});

export const CollectionType = builder.objectRef<CollectionResource>('Collection').implement({
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Internal id; webhooks take these in collection_ids.' }),
    uuid: t.exposeString('uuid'),
    name: t.exposeString('name'),
    slug: t.exposeString('slug'),
    isSingleton: t.boolean({ resolve: (c) => c.is_singleton }),
    order: t.exposeInt('order'),
    createdAt: t.field({ type: 'DateTime',  resolve: (c) => c.created_at }),
    updatedAt: t.field({ type: 'DateTime',  resolve: (c) => c.updated_at }),
    fields: t.field({ type: [CollectionFieldType], resolve: (c) => c.fields ?? [] }),
  }),
});

interface FieldInputShape {
  type: string;
  label: string;
  name: string;
  description?: string | null;
  placeholder?: string | null;
  options?: unknown;
  validations?: unknown;
  order?: number | null;
  parentFieldId?: number | null;
  children?: FieldInputShape[] | null;
}

const FieldInput = builder.inputRef<FieldInputShape>('FieldInput').implement({
  description: 'A field document (options and validations per type as in the REST API).',
  fields: (t) => ({
    type: t.string({ required: true }),
    label: t.string({ required: true }),
    name: t.string({ required: true }),
    description: t.string(),
    placeholder: t.string(),
    // The JSON scalar's input type is `unknown`, which Pothos' input-shape check will not accept as optional.
    options: t.field({ type: 'JSON' }) as never,
    validations: t.field({ type: 'JSON' }) as never,
    order: t.int(),
    parentFieldId: t.int({ description: 'Id of a group field of the collection, to add the field to that group.' }),
    children: t.field({ type: [FieldInput], description: 'Only on createCollection, only under a group.' }),
  }),
});

const OrderItemInput = builder.inputType('OrderItemInput', {
  fields: (t) => ({ uuid: t.string({ required: true }), order: t.int({ required: true }) }),
});

const CreateCollectionInput = builder.inputType('CreateCollectionInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    slug: t.string({ required: true }),
    isSingleton: t.boolean(),
    fields: t.field({ type: [FieldInput] }),
  }),
});

const UpdateCollectionInput = builder.inputType('UpdateCollectionInput', {
  fields: (t) => ({ name: t.string({ required: true }), slug: t.string({ required: true }) }),
});

/** GraphQL input → the wire shape the operations validate (the REST body). */
function fieldDoc(f: FieldInputShape): Record<string, unknown> {
  const doc: Record<string, unknown> = { type: f.type, label: f.label, name: f.name };
  if (f.description !== undefined) doc.description = f.description;
  if (f.placeholder !== undefined) doc.placeholder = f.placeholder;
  if (f.options != null) doc.options = f.options;
  if (f.validations != null) doc.validations = f.validations;
  if (f.order != null) doc.order = f.order;
  if (f.parentFieldId != null) doc.parent_field_id = f.parentFieldId;
  if (f.children != null) doc.children = f.children.map(fieldDoc);
  return doc;
}

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
