import type { CollectionSchema } from '../collections/model.ts';
import type { EntryResource } from '../entries/types.ts';
import { visibleValues } from '../collections/visibility.ts';

/**
 * An outbox entry as a subscriber may see it now: the write rendered it through the visibility rule,
 * and a field hidden since (or deleted) is dropped again with today's schema, as reads would.
 */
export function currentView(collection: CollectionSchema, entry: EntryResource): EntryResource {
  const fields = entry.fields && typeof entry.fields === 'object' ? (entry.fields as Record<string, unknown>) : {};
  return { ...entry, fields: visibleValues(collection.fields, fields) };
}
