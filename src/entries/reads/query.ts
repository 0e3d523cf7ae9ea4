import type { ReadOptions, ReadState } from '../types.ts';

/** `state`: `draft` reads the working draft; anything else (default, invalid) reads the published copy (docs/entries.md). */
export const parseState = (v: unknown): ReadState => (v === 'draft' ? 'draft' : 'published');

/** Flags that count when present (`?timestamps`, `?timestamps=1`, `?count`), except an explicit false/0. */
export const isFlag = (v: unknown): boolean => v !== undefined && v !== null && v !== false && v !== 'false' && v !== '0' && v !== 0;

/** `exclude=a,b` or `exclude[]=a&exclude[]=b`. */
export function parseList(v: unknown): string[] {
  const parts = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : [];
  return parts.map((p) => String(p).trim()).filter(Boolean);
}

export function parseReadOptions(q: Record<string, unknown>): ReadOptions {
  return { state: parseState(q.state), timestamps: isFlag(q.timestamps), exclude: parseList(q.exclude) };
}

// Query-string helpers shared with assets live in the kernel, so no domain imports entries for them.
export { firstString, parsePositiveInt } from '../../text.ts';
