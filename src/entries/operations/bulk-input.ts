import { ErrorBag, validationFailed } from '../../errors.ts';
import { isPlainObject } from '../values/common.ts';
import { isUuid } from '../types.ts';

/** docs/foundation.md. */
export const MAX_WRITE_ITEMS = 50;
export const MAX_DELETE_UUIDS = 100;

/** One item of a bulk create, as sent; field values are checked later by the entries validator. */
export interface BulkCreateItem {
  index: number;
  locale?: unknown;
  state?: unknown;
  data: Record<string, unknown>;
}

/** One item of a bulk update; `state` is already narrowed (anything else means "leave publish state alone"). */
export interface BulkUpdateItem {
  index: number;
  uuid: string;
  locale?: unknown;
  state?: 'draft' | 'published';
  data: Record<string, unknown>;
}

export interface BulkDeleteInput {
  /** Distinct, lower-cased, well-formed UUIDs (malformed ones can name no entry, so they count as unknown). */
  uuids: string[];
  force: boolean;
}

export const itemKey = (index: number) => `items.${index}`;

/**
 * `items` must be an array of 1-50 entries; anything else fails the whole body at once, as there
 * are no indexes to key further errors by.
 */
function itemsArray(body: unknown): unknown[] {
  const items = isPlainObject(body) ? body.items : undefined;
  if (items === undefined || items === null) throw validationFailed({ items: ['The items field is required.'] });
  if (!Array.isArray(items)) throw validationFailed({ items: ['The items field must be an array.'] });
  if (items.length < 1) throw validationFailed({ items: ['The items field must have at least 1 items.'] });
  if (items.length > MAX_WRITE_ITEMS) throw validationFailed({ items: [`The items field must not have more than ${MAX_WRITE_ITEMS} items.`] });
  return items;
}

/** `data` is required (it may be `{}`) and must be an object; returns it, or records why not. */
function itemData(item: Record<string, unknown>, index: number, bag: ErrorBag): Record<string, unknown> | null {
  const key = `${itemKey(index)}.data`;
  if (item.data === undefined || item.data === null) bag.add(key, `The ${key} field is required.`);
  else if (!isPlainObject(item.data)) bag.add(key, `The ${key} field must be an object.`);
  else return item.data;
  return null;
}

/**
 * Shape of a bulk create body. Items with a bad shape get their errors in `bag` and are left out of
 * the result (their field values cannot be checked); the caller validates the rest, so one response
 * lists every problem of the request.
 */
export function parseCreateBody(body: unknown, bag: ErrorBag): BulkCreateItem[] {
  const out: BulkCreateItem[] = [];
  itemsArray(body).forEach((raw, index) => {
    if (!isPlainObject(raw)) {
      bag.add(itemKey(index), `The ${itemKey(index)} field must be an object.`);
      return;
    }
    const data = itemData(raw, index, bag);
    if (data) out.push({ index, locale: raw.locale, state: raw.state, data });
  });
  return out;
}

/**
 * Shape of a bulk update body: every item needs a well-formed `uuid`, and a UUID may appear once per
 * request (the later index fails: two writes of one entry in one request have no defined order).
 */
export function parseUpdateBody(body: unknown, bag: ErrorBag): BulkUpdateItem[] {
  const out: BulkUpdateItem[] = [];
  const seen = new Set<string>();
  itemsArray(body).forEach((raw, index) => {
    const base = itemKey(index);
    if (!isPlainObject(raw)) {
      bag.add(base, `The ${base} field must be an object.`);
      return;
    }
    let uuid: string | null = null;
    if (raw.uuid === undefined || raw.uuid === null || raw.uuid === '') bag.add(`${base}.uuid`, `The ${base}.uuid field is required.`);
    else if (!isUuid(raw.uuid)) bag.add(`${base}.uuid`, `The ${base}.uuid field must be a valid UUID.`);
    else if (seen.has(raw.uuid.toLowerCase())) bag.add(`${base}.uuid`, `The ${base}.uuid field has a duplicate value.`);
    else seen.add((uuid = raw.uuid.toLowerCase()));
    const data = itemData(raw, index, bag);
    const state = raw.state === 'draft' || raw.state === 'published' ? raw.state : undefined;
    if (uuid && data) out.push({ index, uuid, locale: raw.locale, state, data });
  });
  return out;
}

const TRUE = new Set<unknown>([true, 1, '1', 'true']);
const FALSE = new Set<unknown>([false, 0, '0', 'false', '', null, undefined]);

/**
 * Bulk delete body `{ uuids, force? }`. A client that cannot send a DELETE body may put both in the
 * query string instead (`?uuids[]=...&force=1`, as the single delete takes `force`).
 */
export function parseDeleteBody(body: unknown, query: Record<string, unknown> = {}): BulkDeleteInput {
  const source = isPlainObject(body) ? body : body === undefined || body === null ? query : null;
  if (!source) throw validationFailed({ body: ['The request body must be a JSON object.'] });
  const bag = new ErrorBag();
  const raw = source.uuids;
  let uuids: string[] = [];
  if (raw === undefined || raw === null || raw === '') bag.add('uuids', 'The uuids field is required.');
  else if (!Array.isArray(raw)) bag.add('uuids', 'The uuids field must be an array.');
  else if (raw.length < 1) bag.add('uuids', 'The uuids field must have at least 1 items.');
  else if (raw.length > MAX_DELETE_UUIDS) bag.add('uuids', `The uuids field must not have more than ${MAX_DELETE_UUIDS} items.`);
  else {
    raw.forEach((u, i) => {
      if (typeof u !== 'string') bag.add(`uuids.${i}`, `The uuids.${i} field must be a string.`);
    });
    uuids = [...new Set(raw.filter(isUuid).map((u) => u.toLowerCase()))];
  }
  const f = Array.isArray(source.force) ? source.force[0] : source.force;
  if (!TRUE.has(f) && !FALSE.has(f)) bag.add('force', 'The force field must be true or false.');
  bag.throwIfAny();
  return { uuids, force: TRUE.has(f) };
}
