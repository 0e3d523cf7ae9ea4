import { builder } from '../../common/builder.ts';
import type { CollectionResource, FieldResource } from '../../../../collections/operations.ts';

/** The collection and field types, and the inputs their mutations take (`fieldDoc` makes the REST body of a FieldInput). */
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

export interface FieldInputShape {
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

export const FieldInput = builder.inputRef<FieldInputShape>('FieldInput').implement({
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

export const OrderItemInput = builder.inputType('OrderItemInput', {
  fields: (t) => ({ uuid: t.string({ required: true }), order: t.int({ required: true }) }),
});

export const CreateCollectionInput = builder.inputType('CreateCollectionInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    slug: t.string({ required: true }),
    isSingleton: t.boolean(),
    fields: t.field({ type: [FieldInput] }),
  }),
});

export const UpdateCollectionInput = builder.inputType('UpdateCollectionInput', {
  fields: (t) => ({ name: t.string({ required: true }), slug: t.string({ required: true }) }),
});

/** GraphQL input → the wire shape the operations validate (the REST body). */
export function fieldDoc(f: FieldInputShape): Record<string, unknown> {
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

