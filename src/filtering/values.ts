import { isUuid } from '../uuid.ts';
import { findInputProblem } from '../input-problems.ts';
import { LIMITS, type DateValue, type FilterValue, type Operator, type ReferenceValue, type ValueKind } from './ast.ts';

/** A rejected value; the parser turns it into a 422 under the operator's key. */
export class ValueError extends Error {}

const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** Rewrites a numeric string as a JSON number literal, keeping every digit (no float rounding). */
export function canonicalNumber(raw: string): string {
  const s = raw.trim();
  if (!NUMBER_RE.test(s)) throw new ValueError('The value must be a number.');
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s)!;
  const sign = m[1] === '-' ? '-' : '';
  const int = (m[2] ?? '').replace(/^0+(?=\d)/, '') || '0';
  const frac = (m[3] ?? '').replace(/0+$/, '');
  const exp = m[4] ? Number(m[4]) : 0;
  if (Math.abs(exp) > 1000) throw new ValueError('The value must be a number.');
  const body = frac ? `${int}.${frac}` : int;
  const isZero = /^0(\.0*)?$/.test(body);
  return `${isZero ? '' : sign}${body}${exp && !isZero ? `e${exp}` : ''}`;
}

function validDay(y: number, m: number, d: number): boolean {
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d && y >= 1 && y <= 9999;
}

/** Four-digit UTC years only: outside them ISO text gains a sign and six digits PostgreSQL does not read. */
const EARLIEST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');
const INSTANT_RANGE_MESSAGE = 'The value must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z in UTC (a whole day compared with a date-time: up to 9999-12-30).';

/** A calendar day or an instant; anything else (including 2026-02-30) is rejected. */
export function parseDate(raw: string): DateValue {
  const s = raw.trim();
  const day = DAY_RE.exec(s);
  if (day) {
    if (!validDay(Number(day[1]), Number(day[2]), Number(day[3]))) throw new ValueError('The value must be a valid date.');
    return { day: s };
  }
  const dt = DATETIME_RE.exec(s);
  if (dt) {
    const [, y, mo, d, h, mi, sec] = dt;
    if (validDay(Number(y), Number(mo), Number(d)) && Number(h) < 24 && Number(mi) < 60 && Number(sec ?? 0) < 60) {
      // A time without an offset is read as UTC, as the day boundaries are.
      const withZone = dt[7] ? s : `${s}Z`;
      const t = new Date(withZone.replace(' ', 'T'));
      if (!Number.isNaN(t.getTime())) {
        // A time zone displacement can carry 9999-12-31T23:59-14:00 into year 10000 UTC.
        if (t.getTime() < EARLIEST_INSTANT || t.getTime() > LATEST_INSTANT) throw new ValueError(INSTANT_RANGE_MESSAGE);
        return { at: t.toISOString() };
      }
    }
  }
  throw new ValueError('The value must be a valid date (YYYY-MM-DD or ISO 8601 date-time).');
}

/**
 * An instant, or a day read as the span of an instant. The span runs to the next midnight, which
 * must still have a four-digit year, so the last day that fits is 9999-12-30.
 */
function parseInstant(raw: string): DateValue {
  const v = parseDate(raw);
  const from = 'day' in v ? Date.parse(`${v.day}T00:00:00.000Z`) : Date.parse(v.at);
  const to = 'day' in v ? from + 86_400_000 : from;
  if (from < EARLIEST_INSTANT || to > LATEST_INSTANT) throw new ValueError(INSTANT_RANGE_MESSAGE);
  return v;
}

/** A day for date-only fields: a date-time value is reduced to its UTC day. */
function parseDay(raw: string): DateValue {
  const v = parseDate(raw);
  return 'day' in v ? v : { day: v.at.slice(0, 10) };
}

/** Entry and asset ids are PostgreSQL `integer` columns. */
const MAX_INT4 = 2_147_483_647;

function parseReference(raw: string): ReferenceValue {
  const s = raw.trim();
  if (isUuid(s)) return { uuid: s.toLowerCase() };
  if (/^\d{1,10}$/.test(s) && Number(s) >= 1 && Number(s) <= MAX_INT4) return { id: Number(s) };
  throw new ValueError(`The value must be a UUID or a numeric id between 1 and ${MAX_INT4}.`);
}

function parseJsonValue(raw: unknown): string {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      // Not JSON: the text itself is the (string) value looked for.
    }
  }
  // JSON text can spell in escapes (`\u0000`, `\ud800`) what the request guard saw as plain text,
  // and elements of a JSON list operand were never request values of their own.
  const problem = findInputProblem(value, 'value');
  if (problem) throw new ValueError(problem.message);
  return JSON.stringify(value);
}

/** Parses one value of the given kind. */
export function parseValue(kind: ValueKind, raw: unknown): FilterValue {
  if (kind === 'json') return parseJsonValue(raw);
  if (typeof raw === 'number' || typeof raw === 'boolean') raw = String(raw);
  if (typeof raw !== 'string') throw new ValueError('The value must be a single value, not a list or an object.');
  if (raw.length > LIMITS.maxValueLength) throw new ValueError(`The value may not be longer than ${LIMITS.maxValueLength} characters.`);
  switch (kind) {
    case 'text':
    case 'tags':
      return raw;
    case 'number':
      return canonicalNumber(raw);
    case 'boolean': {
      const s = raw.trim().toLowerCase();
      if (s === 'true' || s === '1') return 'true';
      if (s === 'false' || s === '0') return 'false';
      throw new ValueError('The value must be true, false, 1 or 0.');
    }
    case 'day':
    case 'day_range':
      return parseDay(raw);
    case 'instant':
    case 'instant_range':
      return parseInstant(raw);
    case 'reference':
      return parseReference(raw);
    case 'uuid': {
      const s = raw.trim();
      if (!isUuid(s)) throw new ValueError('The value must be a UUID.');
      return s.toLowerCase();
    }
    case 'state': {
      const s = raw.trim();
      if (s !== 'draft' && s !== 'published') throw new ValueError('The value must be draft or published.');
      return s;
    }
  }
}

/** Splits a list operand: an array as given, or a comma-separated string. */
function listOf(raw: unknown, kind: ValueKind): unknown[] {
  if (Array.isArray(raw)) return raw;
  if (typeof raw === 'string') {
    // JSON values may contain commas themselves: a JSON array literal is the list.
    if (kind === 'json' && raw.trim().startsWith('[')) {
      try {
        const parsed: unknown = JSON.parse(raw);
        if (Array.isArray(parsed)) return parsed;
      } catch {
        /* fall through to comma splitting */
      }
    }
    return raw.split(',');
  }
  if (typeof raw === 'number' || typeof raw === 'boolean') return [raw];
  if (raw !== null && typeof raw === 'object' && Object.keys(raw).every((k) => /^\d+$/.test(k))) {
    // qs turns indices above its array limit into an object keyed by index.
    return Object.keys(raw)
      .sort((a, b) => Number(a) - Number(b))
      .map((k) => (raw as Record<string, unknown>)[k]);
  }
  throw new ValueError('The value must be a comma-separated list or an array.');
}

export type ParsedOperand = { op: Operator; values: FilterValue[] };

/**
 * Parses the operand of one operator. `null`/`not_null` take `true`/`1`; `false`/`0` flip them, so
 * `null=false` reads as "has a value".
 */
export function parseOperand(kind: ValueKind, op: Operator, raw: unknown): ParsedOperand {
  switch (op) {
    case 'null':
    case 'not_null': {
      const s = typeof raw === 'string' || typeof raw === 'boolean' || typeof raw === 'number' ? String(raw).trim().toLowerCase() : null;
      if (s === 'true' || s === '1' || s === '') return { op, values: [] };
      if (s === 'false' || s === '0') return { op: op === 'null' ? 'not_null' : 'null', values: [] };
      throw new ValueError('The value must be true or 1.');
    }
    case 'in':
    case 'not_in': {
      const items = listOf(raw, kind);
      if (items.length === 0) throw new ValueError('The list needs at least one value.');
      if (items.length > LIMITS.maxListValues) throw new ValueError(`The list may hold at most ${LIMITS.maxListValues} values.`);
      return { op, values: items.map((v) => parseValue(kind, v)) };
    }
    case 'between':
    case 'not_between': {
      const items = listOf(raw, kind);
      if (items.length !== 2) throw new ValueError('The value must be exactly two bounds (comma-separated or an array).');
      return { op, values: items.map((v) => parseValue(kind, v)) };
    }
    default:
      if (Array.isArray(raw)) throw new ValueError('The value must be a single value, not a list.');
      return { op, values: [parseValue(kind, raw)] };
  }
}
