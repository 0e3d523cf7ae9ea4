import type { Tx } from '../db/client.ts';

/**
 * Entry values live in JSONB keyed by field name (entries.data and entries.published_data), so a
 * field's name is also its storage key. These helpers keep stored drafts and published copies in
 * step with field renames and with a name being reused. Version snapshots are immutable and are
 * never rewritten.
 */

const COLUMNS = ['data', 'published_data'] as const;

/**
 * `X` with key `to` replaced by the value under `from` (or simply removed when `from` is '' or
 * absent). Works on one JSON object expression.
 */
const rekey = (x: string) =>
  `((${x} - $2::text) - $3::text) || CASE WHEN $2::text <> '' AND jsonb_exists(${x}, $2::text) ` +
  `THEN jsonb_build_object($3::text, ${x} -> $2::text) ELSE '{}'::jsonb END`;

async function rewrite(tx: Tx, collectionId: number, parent: string | null, from: string, to: string): Promise<void> {
  for (const col of COLUMNS) {
    if (parent === null) {
      await tx.$executeRawUnsafe(
        `UPDATE entries SET ${col} = ${rekey(col)}
         WHERE collection_id = $1 AND jsonb_typeof(${col}) = 'object'
           AND (jsonb_exists(${col}, $2::text) OR jsonb_exists(${col}, $3::text))`,
        collectionId,
        from,
        to,
      );
      continue;
    }
    // Group values are an object, or an array of objects when the group is repeatable.
    const g = `(${col} -> $4::text)`;
    await tx.$executeRawUnsafe(
      `UPDATE entries SET ${col} = jsonb_set(${col}, ARRAY[$4::text], CASE jsonb_typeof(${g})
          WHEN 'object' THEN ${rekey(g)}
          ELSE (SELECT coalesce(jsonb_agg(CASE WHEN jsonb_typeof(e) = 'object' THEN ${rekey('e')} ELSE e END ORDER BY i), '[]'::jsonb)
                FROM jsonb_array_elements(${g}) WITH ORDINALITY AS el(e, i))
        END)
       WHERE collection_id = $1 AND jsonb_typeof(${g}) IN ('object', 'array')`,
      collectionId,
      from,
      to,
      parent,
    );
  }
}

/** A renamed field keeps its values: they move from the old key to the new one. */
export function renameStoredValues(tx: Tx, collectionId: number, parent: string | null, from: string, to: string): Promise<void> {
  return rewrite(tx, collectionId, parent, from, to);
}

/**
 * A new field starts empty: values a soft-deleted field of the same name left behind are dropped,
 * so they never resurface under a field of another type.
 */
export function clearStoredValues(tx: Tx, collectionId: number, parent: string | null, name: string): Promise<void> {
  return rewrite(tx, collectionId, parent, '', name);
}
