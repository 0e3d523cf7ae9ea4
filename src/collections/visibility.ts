import { authorize, type Ctx } from '../context.ts';
import type { CollectionSchema, FieldDef } from './model.ts';

/** Stored field values keyed by field name (the shape of `EntryData` in src/entries/types.ts). */
type EntryData = Record<string, unknown>;

/**
 * The one rule for what a caller may see of an entry. Every output path (entry reads and lists,
 * write results, version snapshots and diffs, revert and bulk results, GraphQL core and typed,
 * webhook `content_entry` payloads and therefore delivery-log copies) shows field values only through
 * this module, and filters and sorts name fields only through it, so a value that may not leave the
 * server cannot leave it by another door (issue 14 §2).
 *
 * - Password fields (scrypt hashes) and fields with `hiddenInAPI` are write-only: they are never
 *   shown, at any depth (group children included), and are unknown to `where` and `sort`, which
 *   would otherwise let a caller guess them one character at a time (`like` + `count`).
 * - Values are shown for the fields the collection defines today; a value stored under a name no
 *   live field has (a field deleted since a snapshot was taken) is not shown either, since we no longer
 *   know whether it was hidden.
 * - A scoped token sees a collection's fields outside its scope as not existing (`outOfScope`, set on
 *   its own copy of the schema by ./token-scope.ts): the same rule as hidden fields, for that caller.
 * - Reading content, beyond the result of the write a caller just made, needs the `read` ability.
 */

/** Whether a field's values may be shown to API clients. */
export function isVisibleField(field: FieldDef): boolean {
  return field.type !== 'password' && field.options.hiddenInAPI !== true && field.outOfScope !== true;
}

/**
 * Whether every value inside the field is visible (a group with a hidden or password child is not):
 * a filter that compares a whole value (a group's JSON equality) would otherwise test hidden parts.
 */
export function isWhollyVisible(field: FieldDef): boolean {
  return isVisibleField(field) && field.children.every(isWhollyVisible);
}

/**
 * The top-level field a client may name (in `where`, `sort`, `exclude`), or undefined: hidden and
 * password fields answer exactly like names that do not exist, so their existence is not confirmed.
 */
export function visibleField(collection: CollectionSchema, name: string): FieldDef | undefined {
  const field = collection.byName.get(name);
  return field && isVisibleField(field) ? field : undefined;
}

/** The fields whose values may be shown, in schema order. */
export function visibleFields(fields: FieldDef[]): FieldDef[] {
  return fields.filter(isVisibleField);
}

/** `data[key]` when `data` holds the key itself (never a value inherited from Object.prototype). */
export function ownValue(data: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(data, key) ? data[key] : undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Stored values in the write shape (a version snapshot's `fields`), reduced to what may be shown: keys
 * of visible live fields only, group items reduced the same way. Keys absent from `data` stay absent
 * (a snapshot distinguishes "no key" from null only as the diff treats both as "no value").
 */
export function visibleValues(fields: FieldDef[], data: EntryData): EntryData {
  const out: EntryData = {};
  for (const field of visibleFields(fields)) {
    if (!Object.hasOwn(data, field.name)) continue;
    const value = data[field.name];
    if (field.type !== 'group' || value === null) {
      out[field.name] = value;
      continue;
    }
    const item = (v: unknown) => (isRecord(v) ? visibleValues(field.children, v) : v);
    out[field.name] = Array.isArray(value) ? value.map(item) : item(value);
  }
  return out;
}

/** Snapshot fields of `collection` as a caller may see them. */
export function visibleSnapshotFields(collection: CollectionSchema, fields: unknown): EntryData {
  return isRecord(fields) ? visibleValues(collection.fields, fields) : {};
}

/**
 * Content beyond a write's own result (version snapshots and diffs, version lists, entries linked
 * deeper than the write's result) is a read: it needs the `read` ability whichever operation led there.
 */
export function requireContentRead(ctx: Ctx): void {
  authorize(ctx, 'read');
}
