import type { ErrorBag } from './errors.ts';

/**
 * Text PostgreSQL cannot store: `text` rejects U+0000 (SQLSTATE 22021) and `jsonb` rejects `\u0000`
 * and unpaired UTF-16 surrogates, which are not Unicode (22P05). Shared by the request guard
 * (src/edge/input-guard.ts) and the few domain inputs that do not arrive as parsed JSON (upload names).
 */

// NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What makes `s` unstorable ("contains a NUL character (\u0000)"), or null when it can be stored. */
export function unstorableText(s: string): string | null {
  const m = UNSTORABLE.exec(s);
  if (!m) return null;
  return m[0] === '\u0000' ? 'contains a NUL character (\\u0000)' : 'contains an unpaired UTF-16 surrogate (not valid Unicode)';
}

/**
 * `s` as a literal inside a LIKE/ILIKE pattern: `%`, `_` and the escape character `\` (PostgreSQL's
 * default ESCAPE, which Prisma's `contains` also relies on) stand for themselves, so a search for
 * `%` or `_` finds those characters instead of matching everything.
 */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A decimal number as people write it: optional sign, digits with an optional fraction, optional exponent. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * The number a string spells in decimal notation, or NaN. `Number()` alone also reads `0x10`, `0b1`,
 * `0o7`, `Infinity` and surrounding whitespace, which no number field or page parameter means.
 */
export function decimalNumber(s: string): number {
  const t = s.trim();
  return DECIMAL.test(t) ? Number(t) : NaN;
}

/**
 * The key no map the API accepts may hold: `__proto__` sets an object's prototype when a parsed value
 * is copied or assigned key by key, and parsers disagree about it (JSON.parse keeps it as data, the
 * query-string parser drops it). Refused at the edge in every request value (src/edge/input-guard.ts).
 * `constructor` and `prototype` stay ordinary keys: they are valid field names with stored data, and
 * every lookup of a name in request or entry data is of an own key (test/entries/own-keys.test.ts),
 * so they never reach what objects inherit.
 */
export function isReservedKey(key: string): boolean {
  return key === '__proto__';
}

/** The first value of a query parameter (`?a=x&a=y` gives x), trimmed; undefined when missing or blank. */
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

/** A timestamp as the API writes it (ISO 8601 in UTC, milliseconds), or null. */
export const isoOrNull = (d: Date | null): string | null => (d ? d.toISOString() : null);
