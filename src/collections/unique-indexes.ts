import type { Database } from '../db/client.ts';
import type { FieldDef } from './model.ts';
import { fieldIndexPredicate, textLiteral } from './field-indexes.ts';
import { entriesPartition, entriesPartitionSql } from './partitions.ts';

/**
 * The unique rule's index: per field with the rule, a btree on `(locale, data -> '<field>')`, partial
 * on the collection's live rows. The unique checks (src/entries/values/unique-recheck.ts and
 * validate.ts) probe it once per value given, so their cost follows the batch, not the collection:
 * joining the values to every live row by hash took ~10 ms at 10,000 entries and ~1 s at a million,
 * and the recheck runs under the collection's write-scope lock.
 *
 * The statements carry the collection id and field name as constants in their text, written by
 * uniqueValueExpression and fieldIndexPredicate exactly as here, so the planner matches the
 * expression and the predicate even in a generic plan of a named prepared statement.
 */

const UNIQUE_CAPABLE = new Set(['text', 'longtext', 'slug', 'email', 'number']);
/** Of the unique-capable types, those that can be repeatable (their value is then an array). */
const REPEATABLE = new Set(['text', 'longtext', 'email', 'number']);

/** A top-level field whose values must be unique per collection + locale: slugs always, others by rule. */
export function isUniqueField(field: FieldDef): boolean {
  if (field.parentFieldId != null || !UNIQUE_CAPABLE.has(field.type)) return false;
  if (REPEATABLE.has(field.type) && field.options.repeatable) return false;
  return field.type === 'slug' || !!field.validations.unique?.status;
}

/** The compared value of `field` on the entries row `alias` ('' for none, else a plain SQL identifier). */
export function uniqueValueExpression(field: Pick<FieldDef, 'name'>, alias = ''): string {
  if (alias && !/^[a-z_][a-z0-9_]{0,62}$/.test(alias)) throw new Error(`invalid SQL alias ${alias}`);
  return `(${alias ? `"${alias}".` : ''}"data" -> ${textLiteral(field.name)}::text)`;
}

/** The rows a unique check compares with, over the entries row `alias`: the collection's live rows. */
export function uniqueRowsCondition(collectionId: number, alias: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(alias)) throw new Error(`invalid SQL alias ${alias}`);
  return `"${alias}"."collection_id" = ${Number(collectionId)} AND "${alias}"."deleted_at" IS NULL`;
}

export const uniqueIndexName = (fieldId: number): string => `entries_f${fieldId}_u_x`;

/**
 * True while the field's index can be read: built (not still being built CONCURRENTLY, nor left
 * invalid by a failed build) and not dropped for a rebuild. Without it a probe per value would walk
 * the whole collection once per value, so the statements gate their probing branch on this and fall
 * back to one hash join (a one-time filter: only the chosen branch runs).
 */
export const uniqueIndexUsable = (fieldId: number): string =>
  `EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('${uniqueIndexName(fieldId)}') AND indisvalid)`;

export function uniqueIndexStatements(collectionId: number, field: FieldDef, opts: { concurrently?: boolean } = {}): string[] {
  if (!isUniqueField(field)) return [];
  const how = opts.concurrently ? 'CONCURRENTLY IF NOT EXISTS' : 'IF NOT EXISTS';
  return [
    `CREATE INDEX ${how} "${uniqueIndexName(field.id)}" ON ${entriesPartitionSql(collectionId)} ("locale", ${uniqueValueExpression(field)}) WHERE ${fieldIndexPredicate(collectionId, 'data')}`,
  ];
}

export const dropUniqueIndexStatements = (fieldId: number): string[] => [`DROP INDEX IF EXISTS "${uniqueIndexName(fieldId)}"`];

/**
 * The one rule of a field's unique index: built when the field is unique (isUniqueField), else
 * dropped. Every path that brings a field's indexes in line with its definition takes it: after a
 * schema change commits (syncUniqueIndex), inside a caller's transaction (schema-effects.ts) and the
 * repair of a whole collection (collection-repair.ts).
 */
export function uniqueIndexSyncStatements(collectionId: number, field: FieldDef, opts: { concurrently?: boolean } = {}): string[] {
  return isUniqueField(field) ? uniqueIndexStatements(collectionId, field, opts) : dropUniqueIndexStatements(field.id);
}

/** Builds the index if the field has the rule, else drops it; CONCURRENTLY on PostgreSQL (call outside a transaction). */
export async function syncUniqueIndex(database: Database, collectionId: number, field: FieldDef): Promise<void> {
  for (const stmt of uniqueIndexSyncStatements(collectionId, field, { concurrently: database.kind === 'postgres' })) await database.runScript(stmt);
}

/**
 * The unique indexes that exist for a collection's rows (named as uniqueIndexName, partial on its
 * id), by field id, with whether each can be read: what a repair compares with what its fields want.
 * A field deleted since left no row to ask about, so the indexes are found on the collection's partition.
 */
export async function existingUniqueIndexes(database: Database, collectionId: number): Promise<Map<number, { valid: boolean }>> {
  const rows = await database.query<{ name: string; valid: boolean }>(
    `SELECT c.relname AS name, i.indisvalid AS valid
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = to_regclass($1) AND c.relname ~ '^entries_f[0-9]+_u_x$'`,
    [entriesPartition(collectionId)],
  );
  return new Map(rows.map((r) => [Number(/^entries_f(\d+)_u_x$/.exec(r.name)![1]), { valid: r.valid }]));
}
