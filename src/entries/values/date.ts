import type { FieldDef } from '../../collections/model.ts';
import { fail, isPlainObject, label, ok, type Parsed } from './common.ts';

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

function validCalendarDate(y: number, m: number, d: number): boolean {
  const dt = new Date(Date.UTC(y, m - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === m - 1 && dt.getUTCDate() === d;
}

/**
 * `YYYY-MM-DD`, or with `includeTime` an ISO 8601 date-time normalised to UTC (`2024-05-01T10:00:00.000Z`);
 * a date-time without an offset is read as UTC.
 */
function parseOne(f: FieldDef, v: unknown): Parsed {
  if (typeof v !== 'string') return fail(`The ${label(f)} field must be a date string.`);
  const s = v.trim();
  if (!f.options.includeTime) {
    const m = DATE_RE.exec(s);
    if (m && validCalendarDate(+m[1], +m[2], +m[3])) return ok(s);
    return fail(`The ${label(f)} field must be a date in the format YYYY-MM-DD.`);
  }
  const m = DATETIME_RE.exec(s);
  if (m && validCalendarDate(+m[1], +m[2], +m[3]) && (m[4] === undefined || (+m[4] < 24 && +m[5] < 60 && (m[6] === undefined || +m[6] < 60)))) {
    const iso = `${m[1]}-${m[2]}-${m[3]}T${m[4] ?? '00'}:${m[5] ?? '00'}:${m[6] ?? '00'}${m[7] ? `.${m[7].slice(0, 3).padEnd(3, '0')}` : ''}${normaliseOffset(m[8])}`;
    const d = new Date(iso);
    // Stored values are canonical UTC text whose order is time order; a time zone displacement can
    // carry 9999-12-31T23:59-14:00 into year 10000, where ISO text turns into `+010000-…`.
    if (!Number.isNaN(d.getTime()) && d.getUTCFullYear() >= 1 && d.getUTCFullYear() <= 9999) return ok(d.toISOString());
  }
  return fail(`The ${label(f)} field must be an ISO 8601 date-time such as 2024-05-01T10:00:00Z.`);
}

function normaliseOffset(o: string | undefined): string {
  if (!o || o.toUpperCase() === 'Z') return 'Z';
  return o.includes(':') ? o : `${o.slice(0, 3)}:${o.slice(3)}`;
}

/** A date value; in `range` mode `{ start, end }` with start <= end. */
export function parseDate(f: FieldDef, v: unknown): Parsed {
  if (f.options.mode !== 'range') return parseOne(f, v);
  if (!isPlainObject(v)) return fail(`The ${label(f)} field must be a range object { "start": ..., "end": ... }.`);
  const start = parseOne(f, v.start);
  if (!start.ok) return fail(`${start.message} (start)`);
  const end = parseOne(f, v.end);
  if (!end.ok) return fail(`${end.message} (end)`);
  if (Date.parse(String(start.value)) > Date.parse(String(end.value))) return fail(`The ${label(f)} range must not end before it starts.`);
  return ok({ start: start.value, end: end.value });
}
