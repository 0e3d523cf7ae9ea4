import type { ImplementableObjectRef, ObjectRef } from '@pothos/core';
import type { TypedBuilder, TypedTypes } from '../builder.ts';
import type { TypeRefs } from '../entry-types.ts';
import type { CollectionInputs } from '../inputs.ts';
import type { TypedEntry, TypedPage } from '../model.ts';
import type { CollectionNames } from '../names.ts';

type T = PothosSchemaTypes.ExtendDefaultTypes<TypedTypes>;

/** What every root field of one collection is defined from: its builder, names, types and inputs. */
export interface CollectionScope {
  b: TypedBuilder;
  slug: string;
  /** The collection's display name, quoted, for descriptions. */
  label: string;
  n: CollectionNames;
  entry: ImplementableObjectRef<T, TypedEntry>;
  page: ObjectRef<T, TypedPage>;
  io: CollectionInputs;
  entryState: TypeRefs['shared']['entryState'];
}

/** Result types the mutations of every collection share, claimed once per build. */
export interface SharedResults {
  deletion: ObjectRef<T, { uuid: string; message: string }>;
  trashEmptied: ObjectRef<T, { message: string; deleted: number }>;
}
