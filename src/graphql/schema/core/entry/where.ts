import { builder } from '../../common/builder.ts';
import { validationFailed } from '../../../../errors.ts';

/**
 * The list filter of the generic schema: `entries(collection: "posts", where: [EntryWhereInput!])`.
 * A list of conditions, ANDed; each names a field (or core column) and its operators, and may nest
 * conditions on the related entry (`related`) or alternative groups (`or`: each inner list is one
 * ANDed group). `toWhereObject` turns it into the object `qs` makes of `where[...]`, so the REST and
 * GraphQL filters go through one compiler (src/filtering) with the same rules and 422 keys.
 */
export interface EntryWhereShape {
  field?: string | null;
  eq?: unknown;
  not?: unknown;
  lt?: unknown;
  lte?: unknown;
  gt?: unknown;
  gte?: unknown;
  like?: string | null;
  in?: unknown[] | null;
  notIn?: unknown[] | null;
  between?: unknown[] | null;
  notBetween?: unknown[] | null;
  null?: boolean | null;
  notNull?: boolean | null;
  related?: EntryWhereShape[] | null;
  or?: EntryWhereShape[][] | null;
  and?: EntryWhereShape[][] | null;
}

const OPERATORS: Array<[keyof EntryWhereShape, string]> = [
  ['eq', 'eq'],
  ['not', 'not'],
  ['lt', 'lt'],
  ['lte', 'lte'],
  ['gt', 'gt'],
  ['gte', 'gte'],
  ['like', 'like'],
  ['in', 'in'],
  ['notIn', 'not_in'],
  ['between', 'between'],
  ['notBetween', 'not_between'],
  ['null', 'null'],
  ['notNull', 'not_null'],
];

// Pothos types a JSON input field as `unknown`, which it will not assign to an optional shape
// property; the JSON operand fields are cast (as src/graphql/schema/core/collection/types.ts does).
export const EntryWhereInput = builder.inputRef<EntryWhereShape>('EntryWhereInput').implement({
  description:
    'One condition of an entry list filter. `field` is a core column (id, uuid, locale, state, created_at, updated_at, ' +
    'published_at) or a field name of the collection; the operators set on it are ANDed. Values are JSON scalars ' +
    '(strings, numbers, booleans; objects for json fields). See docs/filtering.md for each operator per field type.',
  fields: (t) => ({
    field: t.string({ required: false, description: 'Column or field name. May be omitted when only `or`/`and` is given.' }),
    eq: t.field({ type: 'JSON', required: false }) as never,
    not: t.field({ type: 'JSON', required: false, description: 'Does not match; entries without a value match too.' }) as never,
    lt: t.field({ type: 'JSON', required: false }) as never,
    lte: t.field({ type: 'JSON', required: false }) as never,
    gt: t.field({ type: 'JSON', required: false }) as never,
    gte: t.field({ type: 'JSON', required: false }) as never,
    like: t.string({ required: false, description: 'Case-insensitive substring match.' }),
    in: t.field({ type: ['JSON'], required: false }) as never,
    notIn: t.field({ type: ['JSON'], required: false }) as never,
    between: t.field({ type: ['JSON'], required: false, description: 'Two bounds, inclusive.' }) as never,
    notBetween: t.field({ type: ['JSON'], required: false }) as never,
    null: t.boolean({ required: false, description: 'true: has no value; false: has a value.' }),
    notNull: t.boolean({ required: false }),
    related: t.field({
      type: [EntryWhereInput],
      required: false,
      description: 'For relation fields: conditions on the related entry (one level deep).',
    }),
    or: t.field({
      type: t.listRef(t.listRef(EntryWhereInput)),
      required: false,
      description: 'Alternatives: each inner list is one group of ANDed conditions; an entry matches if any group does.',
    }),
    and: t.field({ type: t.listRef(t.listRef(EntryWhereInput)), required: false, description: 'Groups that must all match.' }),
  }),
});

/** Input nesting beyond this is cut off before it reaches the filter's own (smaller) depth limit. */
const MAX_INPUT_DEPTH = 10;

type WhereObject = Record<string, unknown>;

/** Null-prototype, so a field named `__proto__` stays a key (and is rejected as unknown) instead of a prototype. */
const newObject = (): WhereObject => Object.create(null) as WhereObject;

function operand(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(operand);
  return value;
}

/**
 * Adds `part` to the conditions; a key already present (two conditions on one field, or two `or`s)
 * goes to an `and` group instead of overwriting it.
 */
function merge(target: WhereObject, part: WhereObject): void {
  const clash = Object.keys(part).some((k) => k in target);
  if (!clash) {
    for (const k of Object.keys(part)) target[k] = part[k];
    return;
  }
  const and = (target.and as WhereObject[] | undefined) ?? [];
  and.push(part);
  target.and = and;
}

function conditions(list: readonly EntryWhereShape[], path: string, depth: number): WhereObject {
  if (depth > MAX_INPUT_DEPTH) throw validationFailed({ [path]: ['The filter is nested too deeply.'] });
  const out = newObject();
  list.forEach((c, i) => merge(out, condition(c, `${path}.${i}`, depth)));
  return out;
}

function condition(c: EntryWhereShape, path: string, depth: number): WhereObject {
  const out = newObject();
  if (c.or) out.or = c.or.map((g, i) => conditions(g, `${path}.or.${i}`, depth + 1));
  if (c.and) merge(out, { and: c.and.map((g, i) => conditions(g, `${path}.and.${i}`, depth + 1)) });
  const ops = newObject();
  for (const [name, key] of OPERATORS) {
    const v = c[name];
    if (v !== undefined && v !== null) ops[key] = operand(v);
  }
  const related = c.related?.length ? conditions(c.related, `${path}.related`, depth + 1) : newObject();
  const hasOps = Object.keys(ops).length > 0 || Object.keys(related).length > 0;
  if (c.field == null || c.field === '') {
    if (hasOps) throw validationFailed({ [`${path}.field`]: ['The field is required when operators are given.'] });
    return out;
  }
  if (!hasOps) throw validationFailed({ [`${path}.field`]: [`The condition on '${c.field}' needs an operator.`] });
  const own = newObject();
  for (const k of Object.keys(related)) own[k] = related[k];
  for (const k of Object.keys(ops)) own[k] = ops[k];
  const part = newObject();
  part[c.field] = own;
  merge(out, part);
  return out;
}

/** GraphQL `where` → the normalised `where` object that `compileWhere` takes (same as REST's qs output). */
export function toWhereObject(where: readonly EntryWhereShape[] | null | undefined): WhereObject | undefined {
  if (!where || where.length === 0) return undefined;
  return conditions(where, 'where', 0);
}
