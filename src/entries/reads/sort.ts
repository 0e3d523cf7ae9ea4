import { Prisma } from '../../db/client.ts';
import { ErrorBag } from '../../errors.ts';
import type { CollectionSchema } from '../../collections/model.ts';
import { isRepeatableScalar } from '../values/index.ts';
import { fieldIndexKind, textLiteral } from '../../collections/field-indexes.ts';
import { visibleField } from '../../collections/visibility.ts';

/**
 * Core columns by sort name. A Map, not an object literal: a name from the query string must never
 * find an inherited property (`__proto__`, `constructor`), which would reach the SQL as raw text.
 */
const CORE = new Map<string, string>([
  ['id', 'e.id'],
  ['created_at', 'e.created_at'],
  ['updated_at', 'e.updated_at'],
  ['published_at', 'e.published_at'],
]);
/** Columns that are never null: their order needs no NULLS clause, so `id DESC` can walk an index backwards. */
const NOT_NULL = new Set(['id', 'created_at', 'updated_at']);
const TEXT_TYPES = new Set(['text', 'longtext', 'slug', 'email', 'enumeration', 'color', 'date', 'time']);

/**
 * `sort=field:asc,other:desc` (direction case-insensitive, default asc) into an ORDER BY over the
 * chosen JSONB column. Numbers sort numerically and booleans as booleans; text-like values (dates and
 * times are ISO strings) sort as text. Unset values sort last either way. The entry id always breaks ties,
 * so pages are stable. Unknown or unsortable fields are a 422 on `sort`.
 */
export function compileSort(sort: unknown, collection: CollectionSchema, column: 'data' | 'published_data'): Prisma.Sql {
  const col = Prisma.raw(`e.${column}`);
  const bag = new ErrorBag();
  const parts: Prisma.Sql[] = [];
  let hasId = false;
  const items = typeof sort === 'string' ? sort.split(',').map((s) => s.trim()).filter(Boolean) : [];
  if (sort !== undefined && typeof sort !== 'string') bag.add('sort', 'The sort parameter must be a string such as "title:asc,id:desc".');
  for (const item of items) {
    const [name, rawDir = 'asc', extra] = item.split(':').map((s) => s.trim());
    const dir = rawDir.toLowerCase();
    if (extra !== undefined || (dir !== 'asc' && dir !== 'desc')) {
      bag.add('sort', `Invalid sort "${item}": use field:asc or field:desc.`);
      continue;
    }
    const direction = Prisma.raw(dir === 'asc' ? 'ASC NULLS LAST' : 'DESC NULLS LAST');
    // Published reads show (and so sort by) the published version's time (src/entries/reads/serialize.ts).
    const core = column === 'published_data' && name === 'updated_at' ? 'e.published_updated_at' : CORE.get(name);
    if (core !== undefined) {
      if (name === 'id') hasId = true;
      parts.push(Prisma.sql`${Prisma.raw(core)} ${NOT_NULL.has(name) ? Prisma.raw(dir.toUpperCase()) : direction}`);
      continue;
    }
    // Hidden and password fields are unknown (same message as a missing field): an order over them
    // would leak their values through the order of the rows.
    const field = visibleField(collection, name);
    const sortable =
      field &&
      !isRepeatableScalar(field) &&
      (field.type === 'number' || field.type === 'boolean' || TEXT_TYPES.has(field.type)) &&
      !(field.type === 'enumeration' && field.options.multiple) &&
      !(field.type === 'date' && field.options.mode === 'range');
    if (!field || !sortable) {
      bag.add('sort', `Cannot sort by "${name}": use id, created_at, updated_at, published_at or a single-valued scalar field of the collection.`);
      continue;
    }
    // The schema's field name as a literal, not a parameter: the order then has no parameter, so a
    // list page can be a prepared statement whose generic plan still matches the field's expression
    // index (src/entries/reads/page-rows.ts); an unnamed statement is planned the same either way.
    const key = Prisma.raw(`${textLiteral(field.name)}::text`);
    let expr: Prisma.Sql;
    if (field.type === 'number') {
      expr = Prisma.sql`(CASE WHEN jsonb_typeof(${col} -> ${key}) = 'number' THEN (${col} ->> ${key})::numeric END)`;
    } else if (field.type === 'boolean') {
      expr = Prisma.sql`(CASE WHEN jsonb_typeof(${col} -> ${key}) = 'boolean' THEN (${col} ->> ${key})::boolean END)`;
    } else {
      expr = Prisma.sql`(${col} ->> ${key})`;
    }
    parts.push(Prisma.sql`${expr} ${direction}`);
  }
  bag.throwIfAny();
  if (!hasId) parts.push(Prisma.sql`e.id ASC`);
  return Prisma.join(parts, ', ');
}

/**
 * Whether an index hands out rows in the order of the sort's leading key, so that a page (ORDER BY ..
 * LIMIT) can stop after its rows instead of sorting every match: the primary key for `id` ascending
 * (also the order without a sort), and a field's btree index (src/collections/field-indexes.ts: number
 * and single date fields) for that field ascending, and `id` either way. Other descending orders are
 * DESC NULLS LAST, which is not a backward walk of an ASC NULLS LAST index; timestamps and text fields
 * have no ordered index.
 * Call with a sort compileSort accepted.
 */
export function sortHasIndexOrder(sort: unknown, collection: CollectionSchema): boolean {
  const first = typeof sort === 'string' ? sort.split(',').map((s) => s.trim()).find(Boolean) : undefined;
  if (first === undefined) return true;
  const [name, dir = 'asc'] = first.split(':').map((s) => s.trim());
  // The list indexes end in id, and id is never null: either direction is an index walk.
  if (name === 'id') return true;
  if (dir.toLowerCase() !== 'asc') return false;
  if (CORE.has(name)) return false;
  const field = visibleField(collection, name);
  const kind = field ? fieldIndexKind(field) : null;
  return kind === 'numeric' || kind === 'text';
}
