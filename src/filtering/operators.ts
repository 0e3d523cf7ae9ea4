import { Prisma } from '../db/client.ts';
import { escapeLike } from '../text.ts';
import type { DateValue, FilterValue, Operator, ValueKind } from './ast.ts';

type Sql = Prisma.Sql;
const { sql, join } = Prisma;

export const TRUE = sql`TRUE`;
export const FALSE = sql`FALSE`;

export const anyOf = (parts: Sql[]): Sql => (parts.length === 0 ? FALSE : parts.length === 1 ? parts[0] : sql`(${join(parts, ' OR ')})`);
export const allOf = (parts: Sql[]): Sql => (parts.length === 0 ? TRUE : parts.length === 1 ? parts[0] : sql`(${join(parts, ' AND ')})`);
/** "Does not match", including rows where the positive test is NULL (no value). */
export const negate = (positive: Sql): Sql => sql`(NOT COALESCE(${positive}, FALSE))`;

/**
 * One stored value seen two ways: as JSONB and as text. For a top-level field these are
 * `col -> name` / `col ->> name` (the shapes expression indexes are built on); for an element of a
 * repeatable field they are the element and its `#>> '{}'` text.
 */
export interface Operand {
  json: Sql;
  text: Sql;
}

/** `%value%` with LIKE's wildcard and escape characters taken literally. */
export function likePattern(value: string): string {
  return `%${escapeLike(value)}%`;
}

/** Numeric view of a JSONB value; non-numbers are NULL so a stray string never raises a cast error. */
export const numericOf = (x: Operand): Sql => sql`(CASE WHEN jsonb_typeof(${x.json}) = 'number' THEN (${x.text})::numeric END)`;

/**
 * Comparison primitives for date-like values. A filter value is either an instant or a whole day;
 * against date-times a day stands for the UTC interval [day 00:00, next day 00:00).
 */
interface DatePrimitives {
  /** x >= start of v */
  geLower(x: Sql, v: DateValue): Sql;
  /** x < start of v */
  ltLower(x: Sql, v: DateValue): Sql;
  /** x <= end of v (x < next day for a day) */
  leUpper(x: Sql, v: DateValue): Sql;
  /** x > end of v */
  gtUpper(x: Sql, v: DateValue): Sql;
}

function dayBounds(v: DateValue): { lo: string; hi: string | null } {
  if ('at' in v) return { lo: v.at, hi: null };
  const next = new Date(`${v.day}T00:00:00.000Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return { lo: `${v.day}T00:00:00.000Z`, hi: next.toISOString() };
}

/**
 * For instants: core timestamp columns (bound as timestamptz) and date-time field values, which the
 * write path stores as canonical UTC ISO strings (`2024-05-01T10:00:00.000Z`) whose text order is
 * time order, so they compare as text and a plain expression index serves them.
 */
function instantPrimitivesOf(bind: (iso: string) => Sql): DatePrimitives {
  return {
    geLower: (x, v) => sql`${x} >= ${bind(dayBounds(v).lo)}`,
    ltLower: (x, v) => sql`${x} < ${bind(dayBounds(v).lo)}`,
    leUpper: (x, v) => {
      const b = dayBounds(v);
      return b.hi ? sql`${x} < ${bind(b.hi)}` : sql`${x} <= ${bind(b.lo)}`;
    },
    gtUpper: (x, v) => {
      const b = dayBounds(v);
      return b.hi ? sql`${x} >= ${bind(b.hi)}` : sql`${x} > ${bind(b.lo)}`;
    },
  };
}
export const timestampPrimitives = instantPrimitivesOf((iso) => sql`${iso}::timestamptz`);
const isoTextPrimitives = instantPrimitivesOf((iso) => sql`${iso}`);

const dayOf = (v: DateValue): string => ('day' in v ? v.day : v.at.slice(0, 10));

/** For date-only values stored as "YYYY-MM-DD" text, whose text order is date order. */
export const dayPrimitives: DatePrimitives = {
  geLower: (x, v) => sql`${x} >= ${dayOf(v)}`,
  ltLower: (x, v) => sql`${x} < ${dayOf(v)}`,
  leUpper: (x, v) => sql`${x} <= ${dayOf(v)}`,
  gtUpper: (x, v) => sql`${x} > ${dayOf(v)}`,
};

/**
 * Positive date comparison of a span [start, end] (a single date is the span [x, x]):
 * eq = the span touches v, lt = ends before v, lte = ends no later than v, gt = starts after v,
 * gte = starts at or after v, between = overlaps [a, b], in = touches any value.
 */
export function compareDates(p: DatePrimitives, start: Sql, end: Sql, op: Operator, values: DateValue[]): Sql {
  const touches = (v: DateValue) => allOf([p.leUpper(start, v), p.geLower(end, v)]);
  switch (op) {
    case 'eq':
    case 'not':
      return touches(values[0]);
    case 'in':
    case 'not_in':
      return anyOf(values.map(touches));
    case 'lt':
      return p.ltLower(end, values[0]);
    case 'lte':
      return p.leUpper(end, values[0]);
    case 'gt':
      return p.gtUpper(start, values[0]);
    case 'gte':
      return p.geLower(start, values[0]);
    case 'between':
    case 'not_between':
      return allOf([p.leUpper(start, values[1]), p.geLower(end, values[0])]);
    default:
      throw new Error(`unsupported date operator ${op}`);
  }
}

/** Positive comparison of a scalar expression with ordered operators (text and numbers). */
export function compareOrdered(x: Sql, op: Operator, values: Sql[]): Sql {
  switch (op) {
    case 'eq':
    case 'not':
      return sql`${x} = ${values[0]}`;
    case 'in':
    case 'not_in':
      return sql`${x} IN (${join(values)})`;
    case 'lt':
      return sql`${x} < ${values[0]}`;
    case 'lte':
      return sql`${x} <= ${values[0]}`;
    case 'gt':
      return sql`${x} > ${values[0]}`;
    case 'gte':
      return sql`${x} >= ${values[0]}`;
    case 'between':
    case 'not_between':
      return sql`(${x} >= ${values[0]} AND ${x} <= ${values[1]})`;
    default:
      throw new Error(`unsupported operator ${op}`);
  }
}

/** Whether an operator is the negation of another: compiled as NOT COALESCE(positive, FALSE). */
export const isNegative = (op: Operator): boolean => op === 'not' || op === 'not_in' || op === 'not_between' || op === 'not_null';

/** Positive comparison of one stored value (top-level or an array element) of a custom field. */
export function compareValue(kind: ValueKind, x: Operand, op: Operator, values: FilterValue[]): Sql {
  switch (kind) {
    case 'text':
    case 'tags':
      if (op === 'like') return sql`${x.text} ILIKE ${likePattern(values[0] as string)}`;
      return compareOrdered(x.text, op, values.map((v) => sql`${v as string}`));
    case 'number':
      return compareOrdered(numericOf(x), op, values.map((v) => sql`${v as string}::numeric`));
    case 'boolean':
    case 'json':
      return anyOf(values.map((v) => sql`${x.json} @> ${v as string}::jsonb`));
    case 'day':
      return compareDates(dayPrimitives, x.text, x.text, op, values as DateValue[]);
    case 'instant':
      return compareDates(isoTextPrimitives, x.text, x.text, op, values as DateValue[]);
    case 'day_range': {
      const start = sql`(${x.json} ->> 'start')`;
      return compareDates(dayPrimitives, start, sql`COALESCE(${x.json} ->> 'end', ${start})`, op, values as DateValue[]);
    }
    case 'instant_range': {
      const start = sql`(${x.json} ->> 'start')`;
      return compareDates(isoTextPrimitives, start, sql`COALESCE(${x.json} ->> 'end', ${start})`, op, values as DateValue[]);
    }
    default:
      throw new Error(`${kind} values are compiled elsewhere`);
  }
}
