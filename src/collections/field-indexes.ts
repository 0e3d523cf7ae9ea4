import { Prisma, type Database } from '../db/client.ts';
import type { FieldDef } from './model.ts';
import { entriesPartitionSql } from './partitions.ts';

/**
 * Per-field expression indexes, one per field and state column, partial on exactly the rows a list
 * read of that state sees (src/entries/reads/list.ts): the field's collection and live rows, and for the
 * published column also the published-read conditions (publishedReadCondition). Because the list's
 * WHERE implies the predicate clause for clause, the bitmap heap scan is left with no Filter of its
 * own: a visited row is only checked for visibility, not for state.
 *
 * - number fields: btree on the numeric value → ranges (`gt`, `between`, ...) and their COUNT;
 * - single date fields: btree on the ISO text → date ranges;
 * - text, longtext, richtext, slug, email: trigram GIN on the text → `like`;
 * - single relations and single media: btree on the UUID text → nested relation filters that match
 *   many related entries (the semi-join probes this index).
 *
 * Equality and `in` on every type are served by the table-wide `jsonb_path_ops` GIN indexes of the
 * filter migration and need nothing here. Each index expression is written exactly as
 * src/filtering/operators.ts compiles the comparison: pg sends every statement unnamed, so it is
 * planned with its parameter values, the bound field name becomes a constant and the planner matches
 * the expression. PostgreSQL ignores the statistics of partial indexes, so btree indexes come with
 * extended statistics on the same expression; without them `views > 99900` is estimated at a third
 * of the table and gets a sequential scan.
 */

type Column = 'data' | 'published_data';
const COLUMNS: readonly Column[] = ['data', 'published_data'];
const TRIGRAM_TYPES = new Set(['text', 'longtext', 'richtext', 'slug', 'email']);

export type FieldIndexKind = 'numeric' | 'text' | 'trigram';

/** Which index a field gets, or null (repeatable and group children have none: their values are arrays or nested). */
export function fieldIndexKind(field: FieldDef): FieldIndexKind | null {
  if (field.parentFieldId != null || field.options.repeatable) return null;
  if (field.type === 'number') return 'numeric';
  if (field.type === 'date') return field.options.mode === 'range' ? null : 'text';
  if (field.type === 'relation') return field.options.relation?.type === 2 ? null : 'text';
  if (field.type === 'media') return field.options.media?.type === 2 ? null : 'text';
  if (TRIGRAM_TYPES.has(field.type)) return 'trigram';
  return null;
}

/**
 * A string as a standard SQL literal (standard_conforming_strings, on since PostgreSQL 9.1: only
 * quotes are doubled), for names from a collection's schema in statement texts: index expressions,
 * and the sort keys and relation names of statements that must carry no parameter
 * (src/entries/reads/page-rows.ts). Never for request text: every distinct value is another statement text.
 */
export const textLiteral = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/**
 * What a published read adds to the collection and live-row conditions. Both columns change together
 * in every write path, but the pointer is cleared on its own when its version row is deleted
 * (ON DELETE SET NULL), so neither implies the other and both are tested. List reads, nested relation
 * filters and the `_p_` index predicates all use this one text, so they cannot drift apart (the
 * planner matches a partial index only when the query implies its predicate).
 */
const PUBLISHED_READ = (alias: string) => `${alias}"state" = 'published' AND ${alias}"published_version_id" IS NOT NULL`;

/** The published-read conditions over the entries row `alias` (validated: a plain SQL identifier). */
export function publishedReadCondition(alias: string): Prisma.Sql {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(alias)) throw new Error(`invalid SQL alias ${alias}`);
  return Prisma.raw(PUBLISHED_READ(`"${alias}".`));
}

/** The partial-index predicate of a field's index on `column`: the rows a read of that state can see. */
export function fieldIndexPredicate(collectionId: number, column: Column): string {
  const live = `"collection_id" = ${Number(collectionId)} AND "deleted_at" IS NULL`;
  return column === 'published_data' ? `${live} AND ${PUBLISHED_READ('')}` : live;
}
const suffix = (column: Column) => (column === 'data' ? 'd' : 'p');

export const fieldIndexName = (fieldId: number, column: Column): string => `entries_f${fieldId}_${suffix(column)}_x`;
export const fieldStatisticsName = (fieldId: number, column: Column): string => `entries_f${fieldId}_${suffix(column)}_stat_x`;

/** The indexed expression, identical in shape to the compiled filter (numericOf / Operand.text). */
export function fieldIndexExpression(field: FieldDef, column: Column): string {
  const name = `${textLiteral(field.name)}::text`;
  if (fieldIndexKind(field) === 'numeric') {
    return `(CASE WHEN jsonb_typeof("${column}" -> ${name}) = 'number' THEN ("${column}" ->> ${name})::numeric END)`;
  }
  return `("${column}" ->> ${name})`;
}

/** CREATE INDEX (and CREATE STATISTICS for btree) statements of a field; none when it needs no index. */
export function fieldIndexStatements(collectionId: number, field: FieldDef, opts: { concurrently?: boolean } = {}): string[] {
  const kind = fieldIndexKind(field);
  if (!kind) return [];
  const how = opts.concurrently ? 'CONCURRENTLY IF NOT EXISTS' : 'IF NOT EXISTS';
  return COLUMNS.flatMap((column) => {
    const expr = fieldIndexExpression(field, column);
    const using = kind === 'trigram' ? `USING gin (${expr} gin_trgm_ops)` : `(${expr})`;
    const index = `CREATE INDEX ${how} "${fieldIndexName(field.id, column)}" ON ${entriesPartitionSql(collectionId)} ${using} WHERE ${fieldIndexPredicate(collectionId, column)}`;
    if (kind === 'trigram') return [index];
    return [index, `CREATE STATISTICS IF NOT EXISTS "${fieldStatisticsName(field.id, column)}" ON (${expr}) FROM ${entriesPartitionSql(collectionId)}`];
  });
}

export function dropFieldIndexStatements(fieldId: number): string[] {
  return COLUMNS.flatMap((column) => [`DROP INDEX IF EXISTS "${fieldIndexName(fieldId, column)}"`, `DROP STATISTICS IF EXISTS "${fieldStatisticsName(fieldId, column)}"`]);
}

/**
 * Creates a field's indexes. Call after the field's transaction commits (and again after a change
 * of type or options, following dropFieldIndexes): on PostgreSQL the build is CONCURRENTLY, so writers
 * of the entries table are not blocked while it scans. Statistics fill on the next (auto)analyze.
 */
export async function ensureFieldIndexes(database: Database, collectionId: number, field: FieldDef): Promise<void> {
  for (const stmt of fieldIndexStatements(collectionId, field, { concurrently: database.kind === 'postgres' })) await database.runScript(stmt);
}

/** Drops a field's indexes and statistics (after the field is deleted or its type changes). */
export async function dropFieldIndexes(database: Database, fieldId: number): Promise<void> {
  for (const stmt of dropFieldIndexStatements(fieldId)) await database.runScript(stmt);
}
