import { Prisma, type Tx } from '../../db/client.ts';
import { escapeLike } from '../../text.ts';
import type { Ctx } from '../../context.ts';
import type { ErrorBag } from '../../errors.ts';
import type { CollectionSchema, FieldDef } from '../../collections/model.ts';
import type { EntryData, EntryRow } from '../types.ts';
import { isEmptyValue, isPlainObject, label, type ValueContext } from './common.ts';
import { normalizeObject } from './index.ts';
import { isUniqueField } from '../../collections/unique-indexes.ts';
import { uniqueHoldersQuery } from './unique-sql.ts';
import { refRead, resolveReferences } from './references.ts';
import { hasOutOfScopeFields, refuseOutOfScopeWrite } from '../../collections/token-scope.ts';
import { lockWriteScope } from '../operations/write-scope.ts';

export type WriteMode = 'create' | 'replace' | 'patch';

export interface EntryWriteInput {
  data?: unknown;
  locale?: unknown;
  /** Create only: `published` publishes on create; anything else is a draft. Ignored by updates. */
  state?: unknown;
  /** The stored row, for updates (load it with `loadEntriesForWrite`, which also locks it). */
  existing?: EntryRow;
}

export interface ValidatedEntry {
  index: number;
  /** The complete working draft to store. */
  data: EntryData;
  locale: string;
  state: 'draft' | 'published';
  existing?: EntryRow;
  /** Field names this write decided. */
  touched: Set<string>;
}

export interface ValidateOptions {
  /** The transaction the write will run in: uniqueness and singleton checks take locks in it. */
  db: Tx;
  bag: ErrorBag;
  /** Prefix of every error key of item `index`: '' for single writes, `items.3.` for bulk. */
  keyPrefix?: (index: number) => string;
  /**
   * Validation runs before the write's transaction (src/entries/operations/create-without-lock.ts): its reads go
   * straight through the pool, no write-scope lock is taken, and the writer checks unique values itself
   * under that lock just before it commits (src/entries/values/unique-recheck.ts); stored values are
   * looked up here only for slugs generated from another field, to pick their free suffix.
   */
  beforeTransaction?: boolean;
}

/** Top-level fields whose values must be unique per collection + locale: slugs always, others by rule. */
export function uniqueFields(collection: CollectionSchema): FieldDef[] {
  return collection.fields.filter(isUniqueField);
}

/**
 * Validates and normalizes a batch of entry writes of one collection into the rows to store. Pure with
 * respect to the batch size: every reference of every item is resolved with one query per kind (media,
 * relation), each unique field costs one query, the singleton rule one. Problems go to `opts.bag` under
 * `<prefix>data.<field>` keys; the caller throws. Must run inside the write's transaction.
 */
export async function validateEntryInputs(
  ctx: Ctx,
  collection: CollectionSchema,
  items: EntryWriteInput[],
  mode: WriteMode,
  opts: ValidateOptions,
): Promise<ValidatedEntry[]> {
  const { bag } = opts;
  const prefixOf = opts.keyPrefix ?? (() => '');
  const vc: ValueContext = { bag, refs: [], deferred: [] };
  const generated: Array<Set<string>> = [];

  const results = items.map((item, index): ValidatedEntry => {
    const p = prefixOf(index);
    const existing = item.existing;
    let locale = existing?.locale ?? ctx.project.defaultLocale;
    if (item.locale !== undefined && item.locale !== null && item.locale !== '') {
      const code = typeof item.locale === 'string' ? item.locale.trim().toLowerCase() : '';
      if (ctx.project.locales.includes(code)) locale = code;
      else bag.add(`${p}locale`, `The selected locale is invalid: use one of ${ctx.project.locales.join(', ')}.`);
    }
    const state = mode === 'create' && item.state === 'published' ? 'published' : 'draft';

    let raw: Record<string, unknown> = {};
    if (isPlainObject(item.data)) raw = item.data;
    else if (item.data !== undefined && item.data !== null) bag.add(`${p}data`, 'The data field must be an object of field values.');

    const existingData = (isPlainObject(existing?.data) ? existing.data : {}) as EntryData;
    const out: EntryData = mode === 'patch' ? { ...existingData } : {};
    // A scoped token writes only its fields: naming another is refused whole; a replace keeps their
    // values (they were never the caller's to clear). A create still checks every field's rules.
    refuseOutOfScopeWrite(collection, raw);
    let fields = collection.fields;
    if (mode !== 'create' && hasOutOfScopeFields(collection)) {
      fields = fields.filter((f) => !f.outOfScope);
      for (const f of collection.fields) if (f.outOfScope && Object.hasOwn(existingData, f.name)) out[f.name] = existingData[f.name];
    }
    const { touched, generatedSlugs } = normalizeObject(fields, raw, out, `${p}data.`, vc, {
      partial: mode === 'patch',
      existing: existingData,
    });
    generated.push(generatedSlugs);
    return { index, data: out, locale, state, existing, touched };
  });

  const uniques = uniqueFields(collection);
  const rechecked = opts.beforeTransaction === true && !collection.isSingleton;
  if (!rechecked && (collection.isSingleton || uniques.length)) await lockWriteScope(opts.db, collection, results.map((r) => r.locale));

  await resolveReferences(ctx, refRead(ctx, opts.db, opts.beforeTransaction === true), vc.refs, bag);
  if (collection.isSingleton) await checkSingleton(opts.db, collection, results, bag, prefixOf);
  await checkTranslationGroups(opts.db, collection, results, bag, prefixOf);
  for (const field of uniques) {
    if (!rechecked || generated.some((g) => g.has(field.name))) await checkUnique(opts.db, collection, field, results, generated, bag, prefixOf);
  }

  if (bag.empty) await Promise.all(vc.deferred.map((task) => task()));
  return results;
}

/** At most one live entry per locale (docs/entries.md), within the batch too. */
async function checkSingleton(
  db: Tx,
  collection: CollectionSchema,
  results: ValidatedEntry[],
  bag: ErrorBag,
  prefixOf: (i: number) => string,
): Promise<void> {
  const moving = results.filter((r) => !r.existing || r.existing.locale !== r.locale);
  if (moving.length === 0) return;
  const locales = [...new Set(moving.map((r) => r.locale))];
  const rows = await db.$queryRaw<Array<{ id: number; locale: string }>>(Prisma.sql`
    SELECT id, locale FROM entries
    WHERE collection_id = ${collection.id} AND deleted_at IS NULL AND locale = ANY(${locales}::text[])`);
  const taken = new Map(rows.map((r) => [r.locale, r.id]));
  const message = 'This collection is a singleton and already has an entry.';
  for (const r of moving) {
    const holder = taken.get(r.locale);
    if (holder !== undefined && holder !== r.existing?.id) bag.add(`${prefixOf(r.index)}locale`, message);
    else taken.set(r.locale, r.existing?.id ?? -1 - r.index);
  }
}

/** An entry moving to another locale must not collide with a translation of the same group. */
async function checkTranslationGroups(db: Tx, collection: CollectionSchema, results: ValidatedEntry[], bag: ErrorBag, prefixOf: (i: number) => string): Promise<void> {
  const moving = results.filter((r) => r.existing && r.existing.locale !== r.locale && r.existing.translationGroupId !== null);
  if (moving.length === 0) return;
  const groups = [...new Set(moving.map((r) => r.existing!.translationGroupId!))];
  const rows = await db.$queryRaw<Array<{ id: number; locale: string; group: number }>>(Prisma.sql`
    SELECT id, locale, translation_group_id AS "group" FROM entries
    WHERE collection_id = ${collection.id} AND translation_group_id = ANY(${groups}::int[]) AND deleted_at IS NULL`);
  for (const r of moving) {
    const clash = rows.find((x) => x.group === r.existing!.translationGroupId && x.locale === r.locale && x.id !== r.existing!.id);
    if (clash) bag.add(`${prefixOf(r.index)}locale`, `The entry's translation group already has an entry in locale '${r.locale}'.`);
  }
}

/**
 * One query per unique field finds every stored value the batch could collide with (and, for generated
 * slugs, every `<slug>-<n>` variant). Given values that are taken fail; generated slugs get the first free
 * `-2`, `-3`, ... suffix. Soft-deleted entries and the entry itself do not count.
 */
async function checkUnique(
  db: Tx,
  collection: CollectionSchema,
  field: FieldDef,
  results: ValidatedEntry[],
  generated: Array<Set<string>>,
  bag: ErrorBag,
  prefixOf: (i: number) => string,
): Promise<void> {
  const candidates = results.filter((r) => r.touched.has(field.name) && !isEmptyValue(r.data[field.name]));
  if (candidates.length === 0) return;
  const pairs = [...new Map(candidates.map((r) => [JSON.stringify([r.locale, r.data[field.name]]), { locale: r.locale, value: r.data[field.name] }])).values()];
  const locales = [...new Set(candidates.map((r) => r.locale))];
  const patterns = candidates.filter((r) => generated[r.index].has(field.name)).map((r) => `${escapeLike(String(r.data[field.name]))}-%`);
  const rows = await db.$queryRaw<Array<{ id: number; locale: string; v: unknown }>>(uniqueHoldersQuery(collection.id, field, pairs, locales, patterns));

  const holders = new Map<string, Set<number>>();
  const keyOf = (locale: string, v: unknown) => `${locale}\u0000${JSON.stringify(v)}`;
  const claim = (locale: string, v: unknown, id: number) => {
    const k = keyOf(locale, v);
    const set = holders.get(k) ?? new Set<number>();
    set.add(id);
    holders.set(k, set);
  };
  const takenByOther = (locale: string, v: unknown, self: number) => [...(holders.get(keyOf(locale, v)) ?? [])].some((id) => id !== self);
  for (const row of rows) claim(row.locale, row.v, row.id);

  const message = field.validations.unique?.message || `The ${label(field)} has already been taken.`;
  for (const r of candidates) {
    const self = r.existing?.id ?? -1 - r.index;
    const value = r.data[field.name];
    if (!takenByOther(r.locale, value, self)) {
      claim(r.locale, value, self);
      continue;
    }
    if (!generated[r.index].has(field.name)) {
      bag.add(`${prefixOf(r.index)}data.${field.name}`, message);
      continue;
    }
    let n = 2;
    while (takenByOther(r.locale, `${String(value)}-${n}`, self)) n++;
    r.data[field.name] = `${String(value)}-${n}`;
    claim(r.locale, r.data[field.name], self);
  }
}

/**
 * Restoring a trashed entry makes it live again, so the rules a create checks run again against the
 * live entries: one entry per locale in a singleton, unique values (a slug taken meanwhile is not
 * renamed: the client decides), and one entry per locale in its translation group. Problems go to
 * `bag` under `locale` / `data.<field>`. Takes the write-scope lock like a create.
 */
export async function checkRestoreConflicts(db: Tx, collection: CollectionSchema, row: EntryRow, bag: ErrorBag): Promise<void> {
  const data = (isPlainObject(row.data) ? { ...row.data } : {}) as EntryData;
  const uniques = uniqueFields(collection);
  if (collection.isSingleton || uniques.length) await lockWriteScope(db, collection, [row.locale]);
  // As a new entry: it has no live row of its own to exempt from the checks.
  const item: ValidatedEntry = { index: 0, data, locale: row.locale, state: 'draft', touched: new Set(Object.keys(data)) };
  const prefixOf = () => '';
  if (collection.isSingleton) await checkSingleton(db, collection, [item], bag, prefixOf);
  for (const field of uniques) await checkUnique(db, collection, field, [item], [new Set()], bag, prefixOf);
  if (row.translationGroupId === null) return;
  const clash = await db.$queryRaw<Array<{ id: number }>>(Prisma.sql`
    SELECT id FROM entries
    WHERE collection_id = ${collection.id} AND translation_group_id = ${row.translationGroupId} AND locale = ${row.locale} AND deleted_at IS NULL AND id <> ${row.id}
    LIMIT 1`);
  if (clash.length) bag.add('locale', `The entry's translation group already has an entry in locale '${row.locale}'.`);
}
