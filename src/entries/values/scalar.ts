import type { FieldDef } from '../../collections/model.ts';
import { decimalNumber } from '../../text.ts';
import { fail, label, ok, type Parsed } from './common.ts';

const EMAIL_RE = /^[^\s@"<>()[\]\\,;:]+@[^\s@"<>()[\]\\,;:]+\.[^\s@"<>()[\]\\,;:]+$/;
const HEX_RE = /^#(?:[0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const RGB_RE = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/i;
const RGBA_RE = /^rgba\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(0|1|0?\.\d+|1\.0+)\s*\)$/i;
const TIME_RE = /^(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d)?$/;
export const SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function parseString(f: FieldDef, v: unknown): Parsed {
  if (typeof v === 'string') return ok(v);
  if (typeof v === 'number' && Number.isFinite(v)) return ok(String(v));
  return fail(`The ${label(f)} field must be a string.`);
}

export function parseEmail(f: FieldDef, v: unknown): Parsed {
  if (typeof v !== 'string') return fail(`The ${label(f)} field must be a string.`);
  const s = v.trim();
  if (s.length > 255 || !EMAIL_RE.test(s)) return fail(`The ${label(f)} field must be a valid email address.`);
  return ok(s);
}

export function parseColor(f: FieldDef, v: unknown): Parsed {
  if (typeof v !== 'string') return fail(`The ${label(f)} field must be a string.`);
  const s = v.trim();
  if (HEX_RE.test(s)) return ok(s);
  const m = RGB_RE.exec(s) ?? RGBA_RE.exec(s);
  if (m && [m[1], m[2], m[3]].every((c) => Number(c) <= 255)) return ok(s);
  return fail(`The ${label(f)} field must be a color: #rgb, #rrggbb, #rrggbbaa, rgb(r, g, b) or rgba(r, g, b, a).`);
}

export function parseTime(f: FieldDef, v: unknown): Parsed {
  if (typeof v === 'string' && TIME_RE.test(v.trim())) return ok(v.trim());
  return fail(`The ${label(f)} field must be a time in the format HH:MM or HH:MM:SS.`);
}

/** Numbers are stored as JSON numbers; decimal strings (form posts) are accepted and converted, `0x10` is not. */
export function parseNumber(f: FieldDef, v: unknown): Parsed {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? decimalNumber(v) : NaN;
  if (!Number.isFinite(n)) return fail(`The ${label(f)} field must be a number.`);
  return ok(n);
}

export function parseBoolean(f: FieldDef, v: unknown): Parsed {
  if (typeof v === 'boolean') return ok(v);
  if (v === 1 || v === '1' || v === 'true') return ok(true);
  if (v === 0 || v === '0' || v === 'false') return ok(false);
  return fail(`The ${label(f)} field must be true or false.`);
}

/** Single choice: one string of the list; `multiple`: an array of distinct strings of the list. */
export function parseEnumeration(f: FieldDef, v: unknown): Parsed {
  const list = f.options.enumeration?.list ?? [];
  const bad = (x: unknown) => typeof x !== 'string' || !list.includes(x);
  if (f.options.multiple) {
    const arr = Array.isArray(v) ? v : [v];
    const wrong = arr.filter(bad);
    if (wrong.length) return fail(`The selected ${label(f)} is invalid: ${wrong.map((w) => JSON.stringify(w)).join(', ')} is not one of ${list.join(', ')}.`);
    return ok([...new Set(arr as string[])]);
  }
  if (bad(v)) return fail(`The selected ${label(f)} is invalid: use one of ${list.join(', ')}.`);
  return ok(v);
}

export function parseSlug(f: FieldDef, v: unknown): Parsed {
  if (typeof v !== 'string' || !SLUG_RE.test(v)) {
    return fail(`The ${label(f)} field must contain only lowercase letters, numbers and single dashes (e.g. "my-post").`);
  }
  return ok(v);
}
