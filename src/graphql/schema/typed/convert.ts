import { isRecord } from './model.ts';

/**
 * Converts typed GraphQL arguments to the shapes the REST layer parses its input into, so one
 * implementation of every rule serves both surfaces: `where` becomes the object `qs` makes of
 * `where[...]` (src/filtering compiles it), `sort` the `column:DIR,...` string, `data` the write
 * shape keyed by field name.
 */

/** GraphQL operator name → the REST operator key (docs/filtering.md). */
export const OPERATOR_KEYS: Record<string, string> = {
  eq: 'eq',
  not: 'not',
  lt: 'lt',
  lte: 'lte',
  gt: 'gt',
  gte: 'gte',
  like: 'like',
  in: 'in',
  notIn: 'not_in',
  between: 'between',
  notBetween: 'not_between',
  null: 'null',
  notNull: 'not_null',
};

/** How one field of a `where` input maps back: to the stored name (or core column) it filters. */
export type WhereSlot =
  | { kind: 'ops'; key: string }
  /** A relation field: operators on the reference itself, `where` filters the target entry. */
  | { kind: 'relation'; key: string; target: () => WherePlan };

export type WherePlan = Map<string, WhereSlot>;

function operand(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(operand);
  if (isRecord(value)) return { ...value };
  return value;
}

function operators(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [op, value] of Object.entries(input)) {
    if (value === undefined || value === null) continue;
    const key = OPERATOR_KEYS[op];
    if (key) out[key] = operand(value);
  }
  return out;
}

/** The relation filter's operators on the reference itself (src/graphql/schema/typed/inputs.ts). */
const REFERENCE_OPERATORS = new Set(['eq', 'not', 'in', 'notIn', 'null', 'notNull']);

/**
 * Typed `where` → the normalised object (`{ title: { like: 'a' }, or: [ ... ], author: { name: { eq: 'x' } } }`).
 * Explicitly null operators are left out, as if not sent.
 */
export function toNormalisedWhere(input: unknown, plan: WherePlan): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isRecord(input)) return out;
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined || value === null) continue;
    if (name === 'and' || name === 'or') {
      if (Array.isArray(value)) out[name] = value.map((group) => toNormalisedWhere(group, plan));
      continue;
    }
    const slot = plan.get(name);
    if (!slot || !isRecord(value)) continue;
    if (slot.kind === 'ops') {
      out[slot.key] = operators(value);
      continue;
    }
    // `{ eq, null, ..., name: { like }, where: { title: { eq } } }` → `{ eq, null, ..., name: { like }, title: { eq } }`
    // (docs/filtering.md): reference operators stay, the related entry's conditions join them. The
    // same field both directly and under `where` is two conditions, so both are kept, ANDed.
    const { where: inner, ...rest } = value;
    const own: Record<string, unknown> = {};
    const direct: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(rest)) (REFERENCE_OPERATORS.has(k) ? own : direct)[k] = v;
    const target = slot.target();
    const [a, b] = [toNormalisedWhere(direct, target), toNormalisedWhere(inner, target)];
    const overlap = Object.keys(a).some((k) => k in b);
    out[slot.key] = { ...operators(own), ...(overlap ? { and: [a, b] } : { ...a, ...b }) };
  }
  return out;
}

/** `[title_ASC, createdAt_DESC]` (enum internal values `title:ASC`, ...) → `title:ASC,created_at:DESC`. */
export function toSortString(sort: readonly string[] | null | undefined): string | undefined {
  return sort && sort.length ? sort.join(',') : undefined;
}

/** How one field of a typed `data` input maps back to the stored field name. */
export interface InputSlot {
  name: string;
  /** Group fields: the plan of the group's children (applied to each item when repeatable). */
  children?: InputPlan;
}

export type InputPlan = Map<string, InputSlot>;

function writeValue(value: unknown, slot: InputSlot): unknown {
  if (value === null || value === undefined) return value;
  if (slot.children) {
    const children = slot.children;
    return Array.isArray(value) ? value.map((item) => toWriteData(item, children)) : toWriteData(value, children);
  }
  return plain(value);
}

/** graphql-js hands input objects over with a null prototype; operations get ordinary objects. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

/** Typed `data` → the write shape keyed by field name. Explicit null is kept (it clears the field). */
export function toWriteData(input: unknown, plan: InputPlan): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isRecord(input)) return out;
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined) continue;
    const slot = plan.get(name);
    if (slot) out[slot.name] = writeValue(value, slot);
  }
  return out;
}
