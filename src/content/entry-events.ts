import type { CollectionSchema } from '../collections/model.ts';
import type { ContentEventInput } from '../webhooks/outbox.ts';
import type { ContentEventName } from '../webhooks/events.ts';
import type { EntryResource, EntryRow } from '../entries/types.ts';

/** A collection as content events name it. */
export const collectionRef = (c: CollectionSchema) => ({ id: c.id, uuid: c.uuid, slug: c.slug });

/** Builds the content events of one collection's entries. */
export type EventOf = (event: ContentEventName, row: Pick<EntryRow, 'uuid' | 'locale'>, entry?: EntryResource) => ContentEventInput;

export const eventFactory = (collection: CollectionSchema): EventOf => {
  const ref = collectionRef(collection);
  return (event, row, entry) => ({ event, collection: ref, entryUuid: row.uuid, locale: row.locale, entry });
};

/**
 * The events of a create, single or bulk, transactional or not: `content.created`, then
 * `content.published` when it published on create (version 1). Both carry the same resource.
 */
export const createdEvents = (event: EventOf, row: Pick<EntryRow, 'uuid' | 'locale'>, entry: EntryResource, published: boolean): ContentEventInput[] =>
  published ? [event('content.created', row, entry), event('content.published', row, entry)] : [event('content.created', row, entry)];
