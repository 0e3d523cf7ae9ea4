import type { FieldDef } from '../collections/model.ts';
import type { CoreColumn, Operator, Target, ValueKind } from './ast.ts';
import { isWhollyVisible } from '../collections/visibility.ts';

const CORE_KINDS: Record<CoreColumn, ValueKind> = {
  id: 'number',
  uuid: 'uuid',
  locale: 'text',
  state: 'state',
  created_at: 'instant',
  updated_at: 'instant',
  published_at: 'instant',
};

export function coreTarget(column: CoreColumn): Target {
  return { kind: 'core', column, valueKind: CORE_KINDS[column] };
}

/** Maps a custom field to how it is compared, or null when the field cannot be filtered (password, a group holding hidden fields). */
export function fieldTarget(field: FieldDef): Target | null {
  const o = field.options;
  const repeatable = o.repeatable === true;
  const base = { kind: 'field' as const, field, repeatable, multiple: false };
  switch (field.type) {
    case 'text':
    case 'longtext':
    case 'richtext':
    case 'slug':
    case 'email':
    case 'color':
    case 'time':
      return { ...base, valueKind: 'text' };
    case 'number':
      return { ...base, valueKind: 'number' };
    case 'boolean':
      return { ...base, valueKind: 'boolean', repeatable: false };
    case 'enumeration':
      return o.multiple ? { ...base, valueKind: 'tags', repeatable: false, multiple: true } : { ...base, valueKind: 'text', repeatable: false };
    case 'date':
      if (o.mode === 'range') return { ...base, valueKind: o.includeTime ? 'instant_range' : 'day_range' };
      return { ...base, valueKind: o.includeTime ? 'instant' : 'day' };
    case 'json':
      return { ...base, valueKind: 'json', repeatable: false };
    case 'group':
      // Equality on a group compares the whole stored object, hidden children included.
      return isWhollyVisible(field) ? { ...base, valueKind: 'json', repeatable: false } : null;
    case 'media':
      return { ...base, valueKind: 'reference', repeatable: false, multiple: o.media?.type === 2 };
    case 'relation':
      return { ...base, valueKind: 'reference', repeatable: false, multiple: o.relation?.type === 2 };
    case 'password':
      // Comparing against password hashes would only leak information about them.
      return null;
  }
}

const ALL: readonly Operator[] = ['eq', 'lt', 'lte', 'gt', 'gte', 'not', 'like', 'in', 'not_in', 'between', 'not_between', 'null', 'not_null'];
const ORDERED = ALL.filter((op) => op !== 'like');
const EQUALITY: readonly Operator[] = ['eq', 'not', 'in', 'not_in', 'null', 'not_null'];

const OPERATORS_BY_KIND: Record<ValueKind, readonly Operator[]> = {
  text: ALL,
  number: ORDERED,
  boolean: EQUALITY,
  day: ORDERED,
  instant: ORDERED,
  day_range: ORDERED,
  instant_range: ORDERED,
  tags: [...EQUALITY, 'like'],
  json: EQUALITY,
  reference: EQUALITY,
  uuid: EQUALITY,
  state: EQUALITY,
};

export function operatorsFor(kind: ValueKind): readonly Operator[] {
  return OPERATORS_BY_KIND[kind];
}

/**
 * The operators a target takes. Core columns take `like` whatever their kind (docs/filtering.md: "treated as
 * `%value%` for core columns"), matched against the column's text form (compile.ts `coreText`).
 */
export function operatorsForTarget(t: Target): readonly Operator[] {
  const ops = operatorsFor(t.valueKind);
  return t.kind === 'core' && !ops.includes('like') ? [...ops, 'like'] : ops;
}

/** How an operand is parsed: `like` on a core column is a substring of its text form, so any text. */
export function operandKind(t: Target, op: Operator): ValueKind {
  return t.kind === 'core' && op === 'like' ? 'text' : t.valueKind;
}

/** A human name of a target's type for error messages. */
export function describeTarget(t: Target): string {
  if (t.kind === 'core') return `the ${t.column} column`;
  return `a ${t.field.type} field`;
}
