import type { Entry } from '../db/generated/prisma/client.ts';

/** An `entries` row as Prisma returns it; raw SQL in this module aliases its columns to the same keys. */
export type EntryRow = Entry;

/** Stored field values of one entry (write shape == stored shape == snapshot shape), keyed by field name. */
export type EntryData = Record<string, unknown>;

/** Which copy of the fields a read serves (docs/entries.md). */
export type ReadState = 'draft' | 'published';

/** A requested state: `draft` reads the working draft; anything else (default, invalid) reads the published copy (docs/entries.md). */
export const toReadState = (v: unknown): ReadState => (v === 'draft' ? 'draft' : 'published');

export interface ReadOptions {
  state: ReadState;
  /** Adds `created_at` / `updated_at`. */
  timestamps?: boolean;
  /** Top-level field names left out of `fields`. */
  exclude?: string[];
  /** Read along a locale fallback chain (src/entries/reads/fallback.ts); absent: the plain read. */
  fallback?: LocaleFallback;
}

/** A read along a locale fallback chain: the locale asked for, and the locales tried in order (it first). */
export interface LocaleFallback {
  requested: string;
  chain: string[];
}

/** The entry resource every surface returns (REST bodies, GraphQL `Entry`, webhook `content_entry`, bulk results). */
export interface EntryResource {
  id: number;
  uuid: string;
  locale: string;
  state: 'draft' | 'published';
  published_at: string | null;
  published_version_id: number | null;
  published_version_number: number | null;
  is_draft_dirty: boolean;
  fields: Record<string, unknown>;
  created_at?: string;
  updated_at?: string;
  /** Only in reads of the trash (src/entries/operations/trash.ts): when the entry was moved there. */
  deleted_at?: string;
  /**
   * Only in searching list reads, the entry's relevance to the search (src/entries/reads/search.ts);
   * only in reads along a fallback chain, the locale asked for (`locale` is the one that answered).
   */
  meta?: { score?: number; requested_locale?: string };
}

export { isUuid } from '../uuid.ts';
