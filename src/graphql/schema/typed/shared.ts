import type { EnumRef, InputObjectRef, ObjectRef } from '@pothos/core';
import type { GraphQLSchema } from 'graphql';
import type { AssetResource } from '../../../assets/resource.ts';
import type { TypedBuilder, TypedTypes } from './builder.ts';
import type { NameRegistry } from './names.ts';
import type { TypedPage } from './model.ts';
import { positionCursor } from '../common/page-info.ts';

type T = PothosSchemaTypes.ExtendDefaultTypes<TypedTypes>;
export type Input = Record<string, unknown>;

export interface DateRangeValue {
  start: string | null;
  end: string | null;
}

/** Types every collection shares; names come from the same registry as the generated ones. */
export interface SharedTypes {
  /** The core schema's `Asset` (same parent shape: the asset resource) when it has one. */
  asset: ObjectRef<T, AssetResource>;
  /** Core version types the typed entries link to, when the core schema has them. */
  versions: { connection: string; version: string } | null;
  dateRange: ObjectRef<T, DateRangeValue>;
  dateRangeInput: InputObjectRef<T, Input>;
  pageInfo: ObjectRef<T, TypedPage>;
  entryState: EnumRef<T, 'draft' | 'published'>;
  filters: {
    string: InputObjectRef<T, Input>;
    float: InputObjectRef<T, Input>;
    int: InputObjectRef<T, Input>;
    boolean: InputObjectRef<T, Input>;
    date: InputObjectRef<T, Input>;
    dateTime: InputObjectRef<T, Input>;
    id: InputObjectRef<T, Input>;
    reference: InputObjectRef<T, Input>;
    json: InputObjectRef<T, Input>;
  };
}

type ScalarName = 'String' | 'Float' | 'Int' | 'Boolean' | 'ID' | 'JSON' | 'DateTime';

const ORDERED_OPS = ['eq', 'not', 'lt', 'lte', 'gt', 'gte'] as const;

/**
 * A filter input of one scalar, with the operators src/filtering accepts for that kind of value
 * (it re-checks them: this only keeps GraphiQL from offering what would be refused).
 */
function scalarFilter(b: TypedBuilder, name: string, scalar: ScalarName, ops: { ordered: boolean; like: boolean; lists: boolean; between: boolean }, description: string) {
  return b.inputRef<Input>(name).implement({
    description,
    fields: (t) => {
      const fields: Record<string, ReturnType<typeof t.field>> = {};
      const single = ops.ordered ? ORDERED_OPS : (['eq', 'not'] as const);
      for (const op of single) fields[op] = t.field({ type: scalar });
      if (ops.like) fields.like = t.field({ type: 'String', description: 'Substring match (case-insensitive).' });
      if (ops.lists) {
        fields.in = t.field({ type: [scalar] });
        fields.notIn = t.field({ type: [scalar] });
      }
      if (ops.between) {
        fields.between = t.field({ type: [scalar], description: 'Exactly two bounds, inclusive.' });
        fields.notBetween = t.field({ type: [scalar], description: 'Exactly two bounds.' });
      }
      fields.null = t.boolean({ description: 'true: has no value; false: has a value.' });
      fields.notNull = t.boolean({ description: 'true: has a value; false: has no value.' });
      return fields as never;
    },
  });
}

function ownAssetType(b: TypedBuilder, types: NameRegistry): ObjectRef<T, AssetResource> {
  return b.objectRef<AssetResource>(types.claim('Asset', 'Content')).implement({
    description: 'A media file. `url` is absolute when PUBLIC_URL is configured.',
    fields: (t) => ({
      id: t.exposeInt('id', { nullable: false }),
      uuid: t.exposeID('uuid', { nullable: false }),
      filename: t.exposeString('filename', { nullable: false }),
      originalFilename: t.exposeString('original_filename', { nullable: false }),
      mimeType: t.exposeString('mime_type', { nullable: false }),
      size: t.exposeString('size', { nullable: false, description: 'Human readable, e.g. "1.2 MB".' }),
      bytes: t.exposeInt('bytes', { nullable: false }),
      url: t.exposeString('url', { nullable: false }),
      originalUrl: t.exposeString('original_url'),
      thumbnailUrl: t.exposeString('thumbnail_url'),
      metadata: t.field({ type: 'JSON', resolve: (a) => a.metadata }),
      createdAt: t.field({ type: 'DateTime', nullable: false, resolve: (a) => a.created_at }),
      updatedAt: t.field({ type: 'DateTime', nullable: false, resolve: (a) => a.updated_at }),
    }),
  });
}

export function defineSharedTypes(b: TypedBuilder, types: NameRegistry, core: GraphQLSchema): SharedTypes {
  const asset = core.getType('Asset') ? ('Asset' as unknown as ObjectRef<T, AssetResource>) : ownAssetType(b, types);
  const versions = core.getType('EntryVersionConnection') && core.getType('EntryVersion') ? { connection: 'EntryVersionConnection', version: 'EntryVersion' } : null;

  const dateRange = b.objectRef<DateRangeValue>(types.claim('DateRange')).implement({
    description: 'A date field in range mode.',
    fields: (t) => ({ start: t.exposeString('start'), end: t.exposeString('end') }),
  });
  const dateRangeInput = b.inputRef<Input>(types.claim('DateRangeInput')).implement({
    fields: (t) => ({ start: t.string(), end: t.string() }),
  });

  // The core PageInfo when the core schema has it (one page type for core and typed lists).
  const pageInfo = core.getType('PageInfo') ? ('PageInfo' as unknown as ObjectRef<T, TypedPage>) : ownPageInfo(b, types);

  const entryState = b.enumType(types.claim('ContentState'), {
    description: 'Which copy of an entry a read serves: the published snapshot (default) or the working draft.',
    values: { published: { value: 'published' }, draft: { value: 'draft' } } as const,
  });

  const text = { ordered: true, like: true, lists: true, between: true };
  const ordered = { ordered: true, like: false, lists: true, between: true };
  const equality = { ordered: false, like: false, lists: true, between: false };
  // Int, DateTime and Uuid filters are used by the entry columns only, which take `like` on their text form.
  const orderedColumn = { ...ordered, like: true };
  const filters: SharedTypes['filters'] = {
    string: scalarFilter(b, types.claim('StringFilter'), 'String', text, 'Conditions on a text value.'),
    float: scalarFilter(b, types.claim('FloatFilter'), 'Float', ordered, 'Conditions on a number.'),
    int: scalarFilter(b, types.claim('IntFilter'), 'Int', orderedColumn, 'Conditions on an entry id; `like` matches its decimal digits.'),
    boolean: scalarFilter(b, types.claim('BooleanFilter'), 'Boolean', equality, 'Conditions on a boolean.'),
    date: scalarFilter(b, types.claim('DateFilter'), 'String', ordered, 'Conditions on a date ("YYYY-MM-DD" or ISO 8601 date-time).'),
    dateTime: scalarFilter(b, types.claim('DateTimeFilter'), 'DateTime', orderedColumn, 'Conditions on an entry timestamp; `like` matches its UTC ISO-8601 text (2026-11-21T09:05:03.120Z).'),
    id: scalarFilter(b, types.claim('UuidFilter'), 'ID', { ...equality, like: true }, 'Conditions on an entry UUID; `like` matches its lowercase text.'),
    reference: scalarFilter(b, types.claim('ReferenceFilter'), 'ID', equality, 'Conditions on a relation or media reference (UUID or numeric id).'),
    json: scalarFilter(b, types.claim('JSONFilter'), 'JSON', equality, 'Containment conditions on a JSON or group value.'),
  };
  return { asset, versions, dateRange, dateRangeInput, pageInfo, entryState, filters };
}

function ownPageInfo(b: TypedBuilder, types: NameRegistry): ObjectRef<T, TypedPage> {
  return b.objectRef<TypedPage>(types.claim('PageInfo')).implement({
    description: 'Where a page sits in the whole list.',
    fields: (t) => ({
      total: t.exposeInt('total', { nullable: false }),
      currentPage: t.exposeInt('currentPage', { nullable: false }),
      perPage: t.exposeInt('perPage', { nullable: false }),
      lastPage: t.exposeInt('lastPage', { nullable: false }),
      hasNextPage: t.boolean({ nullable: false, resolve: (p) => p.currentPage < p.lastPage }),
      hasPreviousPage: t.boolean({ nullable: false, resolve: (p) => p.currentPage > 1 }),
      startCursor: t.string({ nullable: true, resolve: (p) => (p.count ? positionCursor((p.currentPage - 1) * p.perPage) : null) }),
      endCursor: t.string({ nullable: true, resolve: (p) => (p.count ? positionCursor((p.currentPage - 1) * p.perPage + p.count - 1) : null) }),
    }),
  });
}

