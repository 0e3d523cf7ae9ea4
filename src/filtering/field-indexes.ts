import type { Database } from '../db/client.ts';
import type { FieldDef } from '../collections/model.ts';

/**
 * Per-field btree expression indexes for range filters (and sorts) on number and date fields.
 *
 * Equality, `in`, relations and `like` are served by the table-wide GIN indexes of the filter
 * migration; ranges are not (GIN has no order), so without these a `views > 10` filter or its
 * COUNT reads every row of the collection. Each index is partial on one collection, so it only
 * holds that collection's rows, and its expression is written exactly as src/filtering/operators.ts
 * compiles the comparison (the planner substitutes the bound field name as a constant, as pg sends
 * every statement unnamed, hence planned with its parameters, and then matches the expression).
 */

const COLUMNS = [
  ['data', 'd'],
  ['published_data', 'p'],
] as const;

/** Fields whose range filters an index serves: numbers and single (non-range) dates. */
export function wantsRangeIndex(field: FieldDef): boolean {
  if (field.parentFieldId != null || field.options.repeatable) return false;
  if (field.type === 'number') return true;
  return field.type === 'date' && field.options.mode !== 'range';
}

const literal = (s: string): string => `'${s.replace(/'/g, "''")}'`;

export function fieldIndexName(fieldId: number, column: 'data' | 'published_data'): string {
  return `entries_f${fieldId}_${column === 'data' ? 'd' : 'p'}_x`;
}

/** The indexed expression, identical in shape to the compiled filter (see numericOf / Operand.text). */
export function fieldIndexExpression(field: FieldDef, column: 'data' | 'published_data'): string {
  const name = `${literal(field.name)}::text`;
  if (field.type === 'number') {
    return `(CASE WHEN jsonb_typeof("${column}" -> ${name}) = 'number' THEN ("${column}" ->> ${name})::numeric END)`;
  }
  return `("${column}" ->> ${name})`;
}

/** CREATE INDEX statements for a field (none when it needs no range index). */
export function fieldIndexStatements(collectionId: number, field: FieldDef, opts: { concurrently?: boolean } = {}): string[] {
  if (!wantsRangeIndex(field)) return [];
  const how = opts.concurrently ? 'CONCURRENTLY IF NOT EXISTS' : 'IF NOT EXISTS';
  return COLUMNS.map(
    ([column]) =>
      `CREATE INDEX ${how} "${fieldIndexName(field.id, column)}" ON "entries" (${fieldIndexExpression(field, column)}) ` +
      `WHERE "collection_id" = ${Number(collectionId)} AND "deleted_at" IS NULL`,
  );
}

export function dropFieldIndexStatements(fieldId: number): string[] {
  return COLUMNS.map(([column]) => `DROP INDEX IF EXISTS "${fieldIndexName(fieldId, column)}"`);
}

/**
 * Creates the range indexes of a field. Call after the field's transaction commits: on PostgreSQL
 * it builds CONCURRENTLY, so writers of the entries table are not blocked while it scans.
 */
export async function ensureFieldIndexes(database: Database, collectionId: number, field: FieldDef): Promise<void> {
  for (const stmt of fieldIndexStatements(collectionId, field, { concurrently: database.kind === 'postgres' })) await database.runScript(stmt);
}

/** Drops a field's range indexes (after the field is deleted or its type changes). */
export async function dropFieldIndexes(database: Database, fieldId: number): Promise<void> {
  for (const stmt of dropFieldIndexStatements(fieldId)) await database.runScript(stmt);
}
