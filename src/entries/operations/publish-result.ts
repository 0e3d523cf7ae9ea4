import type { Entry } from '../../db/generated/prisma/client.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import type { EntryResource } from '../types.ts';
import type { VersionRecord } from '../versions/serialize.ts';

/** What a publish returns, by the transaction or without a lock (its own file: both publish modules name it). */
export interface PublishResult {
  collection: CollectionSchema;
  entry: Entry;
  version: VersionRecord;
  /** The entry resource as returned and as sent in the event. */
  resource: EntryResource;
}
