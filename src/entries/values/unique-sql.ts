import { Prisma } from '../../db/client.ts';
import type { FieldDef } from '../../collections/model.ts';
import { uniqueIndexUsable, uniqueRowsCondition, uniqueValueExpression } from '../../collections/unique-indexes.ts';
import { textLiteral } from '../../collections/field-indexes.ts';

/**
 * The statements of the unique rule. Each (locale, value) probes the field's unique index
 * (src/collections/unique-indexes.ts) once: a LATERAL subquery with a LIMIT cannot be flattened into a
 * join, so the planner cannot hash the values against every live row of the collection instead (a
 * full scan: ~10 ms at 10,000 entries, ~1 s at a million). The collection id and field name are
 * constants of the text, written as the index writes them, so its expression and predicate match in
 * any plan, generic plans of named prepared statements included. While the index cannot be read
 * (being built, or its build failed) they hash the values against the collection's live rows instead.
 */

/**
 * Whether another live entry holds one of the values (src/entries/values/unique-recheck.ts).
 * $1 the values: id of the row that holds it, locale, value.
 */
export function uniqueRecheckSql(collectionId: number, field: Pick<FieldDef, 'id' | 'name'>): string {
  const live = uniqueRowsCondition(collectionId, 'o');
  const value = uniqueValueExpression(field, 'o');
  const usable = uniqueIndexUsable(field.id);
  return `SELECT 1 AS taken FROM (
      SELECT 1
      FROM jsonb_to_recordset($1::jsonb) AS v(id int, locale text, value jsonb)
      CROSS JOIN LATERAL (
        SELECT 1 FROM entries o
        WHERE ${live} AND o.locale = v.locale AND ${value} = v.value AND o.id <> v.id
        LIMIT 1) AS hit
      WHERE ${usable}
      UNION ALL
      SELECT 1
      FROM entries o JOIN jsonb_to_recordset($1::jsonb) AS v(id int, locale text, value jsonb)
        ON ${value} = v.value AND o.locale = v.locale AND o.id <> v.id
      WHERE ${live} AND NOT ${usable}) AS taken
    LIMIT 1`;
}

/**
 * The live entries holding each (locale, value) of `pairs`, two at most per pair (enough to tell
 * whether one is not the entry itself), and those holding a `<slug>-<n>` variant of the LIKE
 * `patterns` in `locales` (generated slugs pick the first free suffix; the unique index does not serve
 * a pattern, so it is a branch of its own, written as the slug's trigram index expression in
 * src/collections/field-indexes.ts: ~30 ms at a million entries instead of a 600 ms scan). Rows: id,
 * locale, v (the stored value).
 */
export function uniqueHoldersQuery(
  collectionId: number,
  field: Pick<FieldDef, 'id' | 'name'>,
  pairs: Array<{ locale: string; value: unknown }>,
  locales: string[],
  patterns: string[],
): Prisma.Sql {
  const value = Prisma.raw(uniqueValueExpression(field, 'o'));
  const live = Prisma.raw(uniqueRowsCondition(collectionId, 'o'));
  const text = Prisma.raw(`("o"."data" ->> ${textLiteral(field.name)}::text)`);
  const variants = patterns.length
    ? Prisma.sql`UNION ALL
    SELECT o.id, o.locale, ${value} AS v FROM entries o
    WHERE ${live} AND o.locale = ANY(${locales}::text[]) AND ${text} LIKE ANY(${patterns}::text[])`
    : Prisma.empty;
  const usable = Prisma.raw(uniqueIndexUsable(field.id));
  const given = Prisma.sql`jsonb_to_recordset(${JSON.stringify(pairs)}::jsonb) AS c(locale text, value jsonb)`;
  return Prisma.sql`
    SELECT h.id, h.locale, h.v
    FROM ${given}
    CROSS JOIN LATERAL (
      SELECT o.id, o.locale, ${value} AS v FROM entries o
      WHERE ${live} AND o.locale = c.locale AND ${value} = c.value
      LIMIT 2) AS h
    WHERE ${usable}
    UNION ALL
    SELECT o.id, o.locale, ${value} AS v
    FROM entries o JOIN ${given} ON ${value} = c.value AND o.locale = c.locale
    WHERE ${live} AND NOT ${usable}
    ${variants}`;
}
