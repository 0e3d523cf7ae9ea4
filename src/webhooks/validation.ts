import { ErrorBag } from '../errors.ts';
import { EVENT_NAMES } from '../events/names.ts';

export const SOURCES = ['cms', 'api'] as const;

/** A webhook body after shape checks; absent optional keys stay undefined (PUT keeps their values). */
export interface WebhookInput {
  name: string;
  description: string | null | undefined;
  url: string;
  /** undefined = keep (PUT) / none (POST); null = remove. */
  secret: string | null | undefined;
  events: string[];
  sources: string[];
  payload: boolean | undefined;
  status: boolean | undefined;
  collectionIds: number[] | undefined;
}

/** Collection ids are PostgreSQL `integer` columns (serial, so from 1). */
const MAX_INT4 = 2_147_483_647;
const isCollectionId = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= MAX_INT4;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * docs/webhooks.md rules with Laravel-style messages. Every problem of the body is collected before
 * failing. URL reachability and collection ownership need I/O and are checked by the caller.
 */
export function parseWebhookBody(body: unknown, bag: ErrorBag): WebhookInput | null {
  if (!isObject(body)) {
    bag.add('body', 'The request body must be a JSON object.');
    return null;
  }
  const str = (key: string, opts: { required: boolean; min?: number; max?: number; nullable?: boolean }): string | null | undefined => {
    const v = body[key];
    if (v === undefined || (v === null && !opts.nullable) || (v === '' && opts.required)) {
      if (opts.required) bag.add(key, `The ${key} field is required.`);
      return undefined;
    }
    if (v === null) return null;
    if (typeof v !== 'string') {
      bag.add(key, `The ${key} field must be a string.`);
      return undefined;
    }
    if (opts.min !== undefined && v.length < opts.min) bag.add(key, `The ${key} field must be at least ${opts.min} characters.`);
    if (opts.max !== undefined && v.length > opts.max) bag.add(key, `The ${key} field must not be greater than ${opts.max} characters.`);
    return v;
  };
  const list = (key: string, allowed: readonly string[]): string[] => {
    const v = body[key];
    if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) {
      bag.add(key, `The ${key} field is required.`);
      return [];
    }
    if (!Array.isArray(v)) {
      bag.add(key, `The ${key} field must be an array.`);
      return [];
    }
    v.forEach((item, i) => {
      if (typeof item !== 'string' || !allowed.includes(item)) bag.add(`${key}.${i}`, `The selected ${key}.${i} is invalid. Valid ${key}: ${allowed.join(', ')}.`);
    });
    return [...new Set(v.filter((x): x is string => typeof x === 'string'))];
  };
  const bool = (key: string): boolean | undefined => {
    const v = body[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') {
      bag.add(key, `The ${key} field must be true or false.`);
      return undefined;
    }
    return v;
  };

  const name = str('name', { required: true, max: 255 });
  const description = str('description', { required: false, nullable: true, max: 10_000 });
  const url = str('url', { required: true, max: 2048 });
  const secret = str('secret', { required: false, nullable: true, min: 6, max: 255 });
  const events = list('events', EVENT_NAMES);
  const sources = list('sources', SOURCES);
  const payload = bool('payload');
  const status = bool('status');

  let collectionIds: number[] | undefined;
  const rawIds = body.collection_ids;
  if (rawIds !== undefined && rawIds !== null) {
    if (!Array.isArray(rawIds)) {
      bag.add('collection_ids', 'The collection_ids field must be an array.');
    } else {
      rawIds.forEach((id, i) => {
        if (!Number.isSafeInteger(id)) bag.add(`collection_ids.${i}`, `The collection_ids.${i} field must be an integer.`);
        // An integer no `integer` column can hold names no collection; the database is not asked.
        else if (!isCollectionId(id)) bag.add(`collection_ids.${i}`, `The selected collection_ids.${i} is invalid.`);
      });
      collectionIds = [...new Set(rawIds.filter(isCollectionId))];
    }
  }
  if (name === undefined || url === undefined || name === null || url === null) return null;
  return { name, description, url, secret, events, sources, payload, status, collectionIds };
}

/** `paginate` / `page` query values: positive integers; the page size is capped at 100. */
export function parsePaging(query: { paginate?: unknown; page?: unknown }, bag: ErrorBag): { perPage: number; page: number } {
  const read = (key: 'paginate' | 'page', fallback: number): number => {
    const v = query[key];
    if (v === undefined || v === null || v === '') return fallback;
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v.trim()) : NaN;
    if (!Number.isSafeInteger(n) || n < 1) {
      bag.add(key, `The ${key} field must be an integer greater than 0.`);
      return fallback;
    }
    return n;
  };
  return { perPage: Math.min(100, read('paginate', 25)), page: read('page', 1) };
}
