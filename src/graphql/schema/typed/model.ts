import type { EntryResource, ReadState } from '../../../entries/types.ts';

/**
 * What a typed entry object (`Post`, `Author`) resolves from: the entry resource the content
 * operations return (the same object REST sends, so both surfaces show the same values), and the
 * read state, which travels down to relation fields so a published read links published targets.
 * `resource.fields` holds rendered values: richtext as served, media as asset objects, relations as
 * nested entry resources one level deep and as UUIDs below that (resolved through a DataLoader).
 */
export interface TypedEntry {
  resource: EntryResource;
  fields: Record<string, unknown>;
  state: ReadState;
  /** Read along a locale fallback chain: the locale asked for, which travels down to relation fields too. */
  requestedLocale?: string;
}

/** One object of a group field (rendered values, as in `fields`). */
export interface TypedGroup {
  fields: Record<string, unknown>;
  state: ReadState;
  requestedLocale?: string;
}

/** One page of a typed list query. */
export interface TypedPage {
  data: TypedEntry[];
  total: number;
  currentPage: number;
  perPage: number;
  lastPage: number;
  /** Items on the page, for its cursors (set where `pageInfo` is resolved). */
  count?: number;
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function typedEntry(resource: EntryResource, state: ReadState): TypedEntry {
  const typed: TypedEntry = { resource, fields: isRecord(resource.fields) ? resource.fields : {}, state };
  if (resource.meta) typed.requestedLocale = resource.meta.requested_locale;
  return typed;
}
