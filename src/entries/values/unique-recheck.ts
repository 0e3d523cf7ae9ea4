import type { CollectionSchema } from '../../collections/model.ts';
import { isEmptyValue } from './common.ts';
import { uniqueFields } from './validate.ts';

/**
 * The unique rule checked by a writer that has already written its rows (src/entries/operations/create-without-lock.ts):
 * in its transaction, after its own INSERT, it takes the write-scope lock and then runs this
 * statement, which (being a new statement of a READ COMMITTED transaction) sees every row committed
 * before the lock was granted. If another live entry of the collection holds one of the values in the
 * same locale, the writer rolls back. Two writers of one value cannot both pass: the second to get the
 * lock sees the first's row, committed before the lock was released; and a writer that checks before
 * it writes (the locked transaction of validateEntryInputs) either sees this one's row or is seen by it.
 * Rows of the same request are other entries too, so a value given twice in one request fails here.
 *
 * One statement per unique field (there is rarely more than one), joining the values to the live rows
 * of the collection by hash, as checkUnique does: the table-wide containment index would be a probe
 * per value, each walking the index's pending list. Prepared once per connection (the writer names
 * it): planning a statement over `entries`, with its dozens of partial indexes, took as long as
 * running this one on a few thousand rows.
 * $1 the values (id of the row that holds it, locale, value), $2 the collection, $3 the field name.
 */
export const UNIQUE_RECHECK = `SELECT 1 AS taken
    FROM entries o JOIN jsonb_to_recordset($1::jsonb) AS v(id int, locale text, value jsonb)
      ON (o.data -> $3::text) = v.value AND o.locale = v.locale AND o.id <> v.id
    WHERE o.collection_id = $2::int AND o.deleted_at IS NULL
    LIMIT 1`;

/** Per unique field, the parameters of UNIQUE_RECHECK: every value the rows hold (empty values are not unique). */
export function uniqueRecheckParams(collection: CollectionSchema, rows: Array<{ id: number; locale: string; data: Record<string, unknown> }>): unknown[][] {
  return uniqueFields(collection).map((f) => {
    const values = rows.flatMap((r) => (isEmptyValue(r.data[f.name]) ? [] : [{ id: r.id, locale: r.locale, value: r.data[f.name] }]));
    return [JSON.stringify(values), collection.id, f.name];
  });
}
