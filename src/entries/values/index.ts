import slugify from '@sindresorhus/slugify';
import type { FieldDef } from '../../collections/model.ts';
import type { EntryData } from '../types.ts';
import { checkCharcount, fail, isEmptyValue, isPlainObject, label, ok, requiredMessage, type Parsed, type ValueContext } from './common.ts';
import { parseBoolean, parseColor, parseEmail, parseEnumeration, parseNumber, parseSlug, parseString, parseTime } from './scalar.ts';
import { parseDate } from './date.ts';
import { normalizeReferences } from './reference.ts';
import { ownValue } from '../../collections/visibility.ts';
import { hashPassword } from './password.ts';

export type { ValueContext, PendingRef } from './common.ts';

/** Types whose `repeatable` option turns the value into an array of the scalar (docs/foundation.md). */
const REPEATABLE_SCALARS = new Set(['text', 'longtext', 'email', 'number', 'color', 'date', 'time']);

export const isRepeatableScalar = (f: FieldDef): boolean => REPEATABLE_SCALARS.has(f.type) && !!f.options.repeatable;

function parseScalar(f: FieldDef, v: unknown): Parsed {
  switch (f.type) {
    case 'text':
    case 'longtext':
    case 'richtext':
      return parseString(f, v);
    case 'email':
      return parseEmail(f, v);
    case 'color':
      return parseColor(f, v);
    case 'time':
      return parseTime(f, v);
    case 'number':
      return parseNumber(f, v);
    case 'boolean':
      return parseBoolean(f, v);
    case 'enumeration':
      return parseEnumeration(f, v);
    case 'date':
      return parseDate(f, v);
    case 'slug':
      return parseSlug(f, v);
    case 'json':
      return ok(v);
    default:
      return fail(`The ${label(f)} field has an unsupported type.`);
  }
}

function parseChecked(f: FieldDef, v: unknown): Parsed {
  const p = parseScalar(f, v);
  if (!p.ok) return p;
  const tooLong = checkCharcount(f, p.value);
  return tooLong ? fail(tooLong) : p;
}

export interface ObjectResult {
  /** Field names whose stored value this write decided (sent, cleared or generated). */
  touched: Set<string>;
  /** Slug fields whose value was generated here (de-duplicated later, never rejected as taken). */
  generatedSlugs: Set<string>;
}

/**
 * Normalizes one object of field values (an entry's `data`, or one group item) into `out`.
 * `partial` (PATCH) touches only keys present in `raw` and checks `required` only for them; otherwise
 * every field of `fields` is decided and checked. Unknown keys are ignored. `existing` supplies stored
 * password hashes: an empty password keeps the stored one.
 */
export function normalizeObject(
  fields: FieldDef[],
  raw: Record<string, unknown>,
  out: EntryData,
  keyPrefix: string,
  vc: ValueContext,
  opts: { partial: boolean; existing?: EntryData },
): ObjectResult {
  const touched = new Set<string>();
  const generatedSlugs = new Set<string>();
  const considered = fields.filter((f) => !opts.partial || Object.hasOwn(raw, f.name));
  for (const f of considered) {
    const key = keyPrefix + f.name;
    const v = ownValue(raw, f.name);
    touched.add(f.name);
    if (f.type === 'password') {
      const stored = opts.existing ? ownValue(opts.existing, f.name) : undefined;
      if (isEmptyValue(v)) {
        if (stored !== undefined) out[f.name] = stored;
        else delete out[f.name];
      } else if (typeof v !== 'string') {
        vc.bag.add(key, `The ${label(f)} field must be a string.`);
      } else if (v.length > 1024) {
        vc.bag.add(key, `The ${label(f)} field must not be greater than 1024 characters.`);
      } else {
        out[f.name] = null;
        vc.deferred.push(async () => void (out[f.name] = await hashPassword(v)));
      }
      continue;
    }
    if (f.type === 'slug' && f.options.slug?.readonly) {
      // Read-only slugs are always derived from their source field; a sent value is ignored.
      const stored = opts.existing ? ownValue(opts.existing, f.name) : undefined;
      if (stored !== undefined) out[f.name] = stored;
      else delete out[f.name];
      continue;
    }
    if (isEmptyValue(v) || (f.type === 'group' && isPlainObject(v) && Object.keys(v).length === 0)) {
      delete out[f.name];
      continue;
    }
    const set = (value: unknown) => void (out[f.name] = value);
    if (f.type === 'media' || f.type === 'relation') {
      normalizeReferences(f, v, key, vc, set);
    } else if (f.type === 'group') {
      normalizeGroup(f, v, key, vc, set);
    } else if (isRepeatableScalar(f)) {
      const list = Array.isArray(v) ? v : [v];
      const values: unknown[] = [];
      list.forEach((item, i) => {
        const p = parseChecked(f, item);
        if (p.ok) values.push(p.value);
        else vc.bag.add(`${key}.${i}`, p.message);
      });
      set(values);
    } else if (Array.isArray(v) && f.type !== 'json' && !(f.type === 'enumeration' && f.options.multiple)) {
      vc.bag.add(key, `The ${label(f)} field takes a single value, not a list.`);
    } else {
      const p = parseChecked(f, v);
      if (p.ok) set(p.value);
      else vc.bag.add(key, p.message);
    }
  }

  for (const f of fields) {
    if (f.type !== 'slug' || !isEmptyValue(ownValue(out, f.name))) continue;
    const sourceName = f.options.slug?.field;
    const source = sourceName ? ownValue(out, sourceName) : undefined;
    if (typeof source !== 'string' || source.trim() === '') continue;
    const generated = slugify(source).slice(0, 200).replace(/-+$/, '');
    if (!generated) continue;
    out[f.name] = generated;
    touched.add(f.name);
    generatedSlugs.add(f.name);
  }

  for (const f of considered) {
    if (f.validations.required?.status && isEmptyValue(ownValue(out, f.name))) vc.bag.add(keyPrefix + f.name, requiredMessage(f));
  }
  return { touched, generatedSlugs };
}

/** A group value: one object of child values, or an array of them when `repeatable`. */
function normalizeGroup(f: FieldDef, v: unknown, key: string, vc: ValueContext, set: (value: unknown) => void): void {
  const one = (item: unknown, itemKey: string): EntryData | null => {
    if (!isPlainObject(item)) {
      vc.bag.add(itemKey, `The ${label(f)} field must be an object of its sub-fields.`);
      return null;
    }
    const out: EntryData = {};
    normalizeObject(f.children, item, out, `${itemKey}.`, vc, { partial: false });
    return out;
  };
  if (f.options.repeatable) {
    if (!Array.isArray(v)) return vc.bag.add(key, `The ${label(f)} field must be an array of objects.`);
    set(v.map((item, i) => one(item, `${key}.${i}`)).filter((x) => x !== null));
  } else {
    const out = one(v, key);
    if (out) set(out);
  }
}
