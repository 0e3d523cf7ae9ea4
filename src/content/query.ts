import { ErrorBag } from '../errors.ts';
import type { ReadOptions, ReadState } from './types.ts';

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

export const firstString = (v: unknown): string | undefined => {
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s.trim() !== '' ? s.trim() : undefined;
};

/** A positive integer query parameter, or a 422 naming it. */
export function parsePositiveInt(bag: ErrorBag, key: string, v: unknown, opts: { min?: number } = {}): number | undefined {
  const s = firstString(v);
  if (s === undefined) return undefined;
  const min = opts.min ?? 1;
  if (!/^\d{1,9}$/.test(s) || Number(s) < min) {
    bag.add(key, `The ${key} parameter must be an integer of at least ${min}.`);
    return undefined;
  }
  return Number(s);
}
