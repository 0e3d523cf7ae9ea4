import { Prisma } from '../../db/client.ts';
import type { Ctx } from '../../context.ts';
import { textLiteral } from '../../collections/field-indexes.ts';
import { pageLinkedColumn, plainDatabase, statementName, type ReadColumns } from './read-rows.ts';
import type { ReadState } from '../types.ts';

/** A statement and, when it is to be prepared, its name (statementName). */
export interface RowsStatement {
  statement: Prisma.Sql;
  name?: string;
}

export interface LinkedPage {
  state: ReadState;
  projectId: number;
  /** The list's conditions without a filter: the collection id inlined, the locale its only parameter. */
  where: Prisma.Sql;
  /** The list's order with no parameter (compileSort inlines field names). */
  order: Prisma.Sql;
  limit: number;
  offset: number;
}

/**
 * The rows of an unfiltered list page with the entries their relations link, read once for the
 * whole page instead of once per row, as a named prepared statement; or null, and the caller runs
 * the per-row form (readColumns) unnamed as before.
 *
 * A correlated `linked` subquery per row was most of an uncached list page's cost in PostgreSQL
 * (pgbench on a 25-post page: ~80 %). Here the page is a MATERIALIZED CTE and one subquery reads
 * the links of all its rows. That form costs more to plan, so it pays only prepared, and only when
 * its generic plan is the plan a custom one would be: collection id, project id, LIMIT and the
 * relation names are literals in the text (a bound LIMIT or collection id makes PostgreSQL keep
 * re-planning); the locale stays a parameter, which the generic plan takes as well.
 *
 * Texts are bounded: one per collection, state, locale or none, sort and page size, and only for
 * the first page (OFFSET 0, the common read); later pages keep the per-row form. The `page` names
 * are bounded (statementName): past the bound a text runs in the per-row form, which unnamed is
 * cheaper than the CTE form unnamed. Filtered lists keep the per-row form: their WHERE carries
 * values and their own planning. PGlite has no prepared statements here: per-row form as well.
 */
export function linkedPageStatement(ctx: Ctx, read: ReadColumns, page: LinkedPage): RowsStatement | null {
  if (read.links.length === 0 || page.offset !== 0 || page.order.values.length > 0) return null;
  if (!Number.isSafeInteger(page.limit) || page.limit < 1 || !Number.isSafeInteger(page.projectId)) return null;
  if (plainDatabase(ctx)?.kind !== 'postgres') return null;
  const names = Prisma.raw(`ARRAY[${read.links.map(textLiteral).join(', ')}]`);
  // The outer ORDER BY keeps the page's order without relying on the CTE scan's order.
  const statement = Prisma.sql`WITH p AS MATERIALIZED (
    SELECT e.* FROM entries e WHERE ${page.where} ORDER BY ${page.order} LIMIT ${Prisma.raw(String(page.limit))})
  SELECT ${read.entry}, ${pageLinkedColumn(page.state, names, read.targets ?? Prisma.raw('false'), page.projectId, read.shape)} AS linked FROM p e ORDER BY ${page.order}`;
  const name = statementName(statement.text, 'page');
  return name === undefined ? null : { statement, name };
}
