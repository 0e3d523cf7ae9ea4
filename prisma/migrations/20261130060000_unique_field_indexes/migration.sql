-- The unique rule's checks (src/entries/values/unique-recheck.ts, validate.ts) probe a per-field btree
-- on (locale, data -> '<field>'), partial on the collection's live rows, once per value, instead of
-- hashing every live row of the collection (src/collections/unique-indexes.ts). The application builds
-- it CONCURRENTLY when a field gains the rule; existing fields with it (every top-level slug, and
-- single-valued text, longtext, email and number fields with `unique`) get it here, in the migration's
-- transaction: on a large table, build them ahead of time with the statements uniqueIndexStatements
-- produces, CONCURRENTLY (IF NOT EXISTS then skips them here).
DO $$
DECLARE r record;
BEGIN
  FOR r IN
    SELECT id, collection_id, name FROM fields
    WHERE deleted_at IS NULL AND parent_field_id IS NULL
      AND (type = 'slug'
        OR (type IN ('text', 'longtext', 'email', 'number')
          AND (validations -> 'unique' ->> 'status') = 'true'
          AND coalesce(options ->> 'repeatable', 'false') <> 'true'))
  LOOP
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON entries (locale, (data -> %L::text)) WHERE collection_id = %s AND deleted_at IS NULL',
                   'entries_f' || r.id || '_u_x', r.name, r.collection_id);
  END LOOP;
END
$$;
