import { createHash } from 'node:crypto';
import type { CollectionSchema } from '../../collections/model.ts';
import { isEmptyValue } from './common.ts';
import { uniqueFields } from './validate.ts';
import { uniqueRecheckSql } from './unique-sql.ts';
import type { TxQuery } from '../../db/client.ts';
import { LOCK_WRITE_SCOPE } from '../operations/write-scope.ts';

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
 * One statement per unique field (there is rarely more than one): uniqueRecheckSql, which probes the
 * field's unique index per value. Prepared once per connection under a name derived from its text (a
 * renamed field is another statement): planning a statement over `entries`, with its dozens of partial
 * indexes, costs more than running this one.
 */
export interface UniqueRecheck {
  sql: string;
  /** The prepared statement's name: one per distinct text (at most 63 bytes). */
  name: string;
  params: unknown[];
}

/** Per unique field, the statement to run: every value the rows hold (empty values are not unique). */
export function uniqueRechecks(collection: CollectionSchema, rows: Array<{ id: number; locale: string; data: Record<string, unknown> }>): UniqueRecheck[] {
  return uniqueFields(collection).map((f) => {
    const values = rows.flatMap((r) => (isEmptyValue(r.data[f.name]) ? [] : [{ id: r.id, locale: r.locale, value: r.data[f.name] }]));
    const sql = uniqueRecheckSql(collection.id, f);
    const name = `cms_unique_recheck_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    return { sql, name, params: [JSON.stringify(values)] };
  });
}

/**
 * What a writer that wrote first runs before its commit (creates: src/entries/operations/create-without-lock.ts,
 * bulk updates: ./update-without-lock.ts): the content-change triggers deferred to COMMIT run now, before
 * the lock, so that the lock covers only the recheck and the commit itself; then the write-scope lock
 * and the rechecks. False when a value is taken: the writer rolls back and runs the locked transaction,
 * which names the item and field.
 */
export function recheckUnderLock(collection: CollectionSchema, rows: Array<{ id: number; locale: string; data: Record<string, unknown> }>): (query: TxQuery) => Promise<boolean> {
  const rechecks = uniqueRechecks(collection, rows);
  const locales = [...new Set(rows.map((r) => r.locale))].sort();
  return async (query) => {
    await query('SET CONSTRAINTS ALL IMMEDIATE');
    await query(LOCK_WRITE_SCOPE, [collection.id, locales], { name: 'cms_lock_write_scope' });
    for (const r of rechecks) if ((await query(r.sql, r.params, { name: r.name })).length) return false;
    return true;
  };
}
