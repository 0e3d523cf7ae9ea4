import type { CollectionSchema, FieldDef } from '../collections/model.ts';

/** The 13 operators of docs/filtering.md. */
export const OPERATORS = [
  'eq',
  'lt',
  'lte',
  'gt',
  'gte',
  'not',
  'like',
  'in',
  'not_in',
  'between',
  'not_between',
  'null',
  'not_null',
] as const;
export type Operator = (typeof OPERATORS)[number];

export const isOperator = (key: string): key is Operator => (OPERATORS as readonly string[]).includes(key);

/** Entry columns a filter may name directly (docs/filtering.md). */
export const CORE_COLUMNS = ['id', 'uuid', 'locale', 'state', 'created_at', 'updated_at', 'published_at'] as const;
export type CoreColumn = (typeof CORE_COLUMNS)[number];
export const isCoreColumn = (key: string): key is CoreColumn => (CORE_COLUMNS as readonly string[]).includes(key);

/**
 * Hard caps so a filter cannot make the database do unbounded work. Documented in docs/filtering.md.
 * `maxDepth` counts nested `or`/`and` groups and relation nesting alike.
 */
export const LIMITS = { maxDepth: 4, maxConditions: 50, maxListValues: 100, maxValueLength: 1000 } as const;

/**
 * How a filter compares values. Every custom field type and core column maps to one kind; the kind
 * decides which operators are valid and how values are parsed and compared.
 */
export type ValueKind =
  | 'text' // strings compared as text; like allowed
  | 'number'
  | 'boolean'
  | 'day' // date-only values ("YYYY-MM-DD"), compared as text (lexical order = date order)
  | 'instant' // date-times, compared as timestamptz
  | 'day_range' // date field in range mode without time: { start, end } of days
  | 'instant_range' // date field in range mode with time
  | 'tags' // enumeration with `multiple`: a string array
  | 'json' // json and group fields: containment
  | 'reference' // relation and media fields: UUID (numeric ids resolved)
  | 'uuid'
  | 'state';

/** What a condition compares: an entry column or a custom field's stored value. */
export type Target =
  | { kind: 'core'; column: CoreColumn; valueKind: ValueKind }
  | { kind: 'field'; field: FieldDef; valueKind: ValueKind; repeatable: boolean; multiple: boolean };

/**
 * A value after validation, normalised so the compiler never re-parses user text:
 * - text/tags/state: the string as given; number: a canonical JSON number literal;
 * - boolean: 'true' | 'false'; json: JSON text;
 * - day: 'YYYY-MM-DD'; instant: see DateValue; reference: a UUID or a decimal id.
 */
export type DateValue = { day: string } | { at: string };
export type ReferenceValue = { uuid: string } | { id: number };
export type FilterValue = string | DateValue | ReferenceValue;

export interface Condition {
  kind: 'cond';
  /** Error key, e.g. `where.or.0.views.gt`. */
  key: string;
  target: Target;
  op: Operator;
  values: FilterValue[];
}

/** A filter on the entries a relation field points at (`where[author][name][like]=ann`). */
export interface RelatedCondition {
  kind: 'related';
  key: string;
  field: FieldDef;
  target: CollectionSchema;
  filter: WhereNode;
}

export type WhereNode =
  | { kind: 'and'; items: WhereNode[] }
  | { kind: 'or'; items: WhereNode[] }
  | Condition
  | RelatedCondition;
