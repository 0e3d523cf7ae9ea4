import type { ContentEventInput, RemovedRow } from './outbox.ts';
import type { ContentEventName } from './names.ts';

/*
 * Structural types rather than the entries domain's own: the writers import this module, so it
 * importing theirs would tie the two folders into a cycle.
 */

/** A collection as content events name it (a CollectionSchema fits). */
type CollectionOf = ContentEventInput['collection'];
/**
 * The row fields an event names (an EntryRow fits); a deleted row also its revision and published
 * version (`removed` of a `content.deleted`, src/events/outbox.ts).
 */
type RowOf = { uuid: string; locale: string; revision?: number; publishedVersionId?: number | null };

/** A collection as content events name it: only the fields the payload carries. */
export const collectionRef = (c: CollectionOf): CollectionOf => ({ id: c.id, uuid: c.uuid, slug: c.slug });

/** Builds the content events of one collection's entries; `entry` is the resource as the API renders it. */
export type EventOf = (event: ContentEventName, row: RowOf, entry?: ContentEventInput['entry']) => ContentEventInput;

export const eventFactory = (collection: CollectionOf): EventOf => {
  const ref = collectionRef(collection);
  return (event, row, entry) => ({ event, collection: ref, entryUuid: row.uuid, locale: row.locale, entry, removed: removedOf(event, row) });
};

/** What a `content.deleted` keeps of the deleted row, when the deleting statement returned it. */
export const removedOf = (event: ContentEventName, row: RowOf): RemovedRow | undefined =>
  event === 'content.deleted' && typeof row.revision === 'number' ? { revision: row.revision, publishedVersionId: row.publishedVersionId ?? null } : undefined;

/**
 * The events of a create, single or bulk, transactional or not: `content.created`, then
 * `content.published` when it published on create (version 1). Both carry the same resource.
 */
export const createdEvents = (event: EventOf, row: RowOf, entry: ContentEventInput['entry'], published: boolean): ContentEventInput[] =>
  published ? [event('content.created', row, entry), event('content.published', row, entry)] : [event('content.created', row, entry)];
