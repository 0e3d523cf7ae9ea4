import { isDeepStrictEqual } from 'node:util';

export interface FieldValue {
  field: string;
  value: unknown;
}

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

export interface SnapshotDiff {
  /** Fields with a value in `to` and none in `from`. */
  added: FieldValue[];
  /** Fields with a value in `from` and none in `to`. */
  removed: FieldValue[];
  changed: FieldChange[];
}

/**
 * Field-by-field comparison of two snapshots' `fields`, on top-level field names (a group counts as
 * one field and compares by value). Values compare structurally, so key order inside JSON or group
 * objects is not a change; array order is (it matters for relations, media and repeatables).
 * Output lists are sorted by field name so the result is stable.
 */
export function diffFields(from: Record<string, unknown>, to: Record<string, unknown>): SnapshotDiff {
  const diff: SnapshotDiff = { added: [], removed: [], changed: [] };
  const names = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort();
  for (const field of names) {
    const inFrom = hasValue(from, field);
    const inTo = hasValue(to, field);
    if (inFrom && !inTo) diff.removed.push({ field, value: from[field] });
    else if (!inFrom && inTo) diff.added.push({ field, value: to[field] });
    else if (inFrom && inTo && !isDeepStrictEqual(from[field], to[field])) diff.changed.push({ field, from: from[field], to: to[field] });
  }
  return diff;
}

/** A missing key and an explicit null both mean "no value" in the write shape. */
const hasValue = (o: Record<string, unknown>, k: string): boolean => Object.hasOwn(o, k) && o[k] !== null;
