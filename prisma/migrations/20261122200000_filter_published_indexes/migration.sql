-- Per-field filter indexes on published_data (`entries_f<fieldId>_p_x`) become partial on exactly what a
-- published list read adds: state = 'published' AND published_version_id IS NOT NULL, besides the
-- collection and live rows (src/filtering/field-indexes.ts, fieldIndexPredicate). The list's WHERE then
-- implies the whole predicate and its bitmap heap scans carry no Filter: measured at a million entries,
-- `views between 1000,1999` (10,000 rows) spent a fifth of each heap pass re-testing those two columns.
-- Draft (`_d_`) indexes are unchanged: a draft read adds nothing to collection and live rows.
--
-- Each existing index is rebuilt from its own definition (same expression and method) under a temporary
-- name, then all old ones are dropped and the new ones renamed, so the table is exclusively locked only
-- for the swap at the end, not during the builds. An index already in the new form is skipped: on a
-- large table, build them ahead of time with CREATE INDEX CONCURRENTLY (the statements
-- fieldIndexStatements produces, under a temporary name), drop the old ones concurrently and rename,
-- and this migration does nothing.
DO $published$
DECLARE
  ix record;
  def text;
  pending text[] := '{}';
BEGIN
  FOR ix IN
    SELECT c.relname AS name, pg_get_indexdef(c.oid) AS def, pg_get_expr(x.indpred, x.indrelid) AS pred, f.collection_id
      FROM pg_index x
      JOIN pg_class c ON c.oid = x.indexrelid
      JOIN fields f ON f.id = substring(c.relname FROM '^entries_f([0-9]+)_p_x$')::int
     WHERE x.indrelid = 'entries'::regclass
       AND c.relname ~ '^entries_f[0-9]+_p_x$'
       AND x.indpred IS NOT NULL
       AND pg_get_expr(x.indpred, x.indrelid) NOT LIKE '%published_version_id%'
  LOOP
    -- pg_get_indexdef ends with ' WHERE ' || the predicate: keep everything before it.
    IF right(ix.def, length(' WHERE ' || ix.pred)) <> ' WHERE ' || ix.pred THEN
      RAISE EXCEPTION 'unexpected definition of index %: %', ix.name, ix.def;
    END IF;
    def := left(ix.def, length(ix.def) - length(' WHERE ' || ix.pred));
    def := replace(def, 'CREATE INDEX ' || quote_ident(ix.name) || ' ', 'CREATE INDEX ' || quote_ident(ix.name || '_new') || ' ');
    EXECUTE def || format(' WHERE "collection_id" = %s AND "deleted_at" IS NULL AND "state" = ''published'' AND "published_version_id" IS NOT NULL', ix.collection_id);
    pending := pending || ix.name::text;
  END LOOP;
  FOR i IN 1 .. coalesce(array_length(pending, 1), 0) LOOP
    EXECUTE format('DROP INDEX %I', pending[i]);
    EXECUTE format('ALTER INDEX %I RENAME TO %I', pending[i] || '_new', pending[i]);
  END LOOP;
END
$published$;
