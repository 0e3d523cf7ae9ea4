-- Locale fallback reads (src/entries/reads/fallback.ts) look up an entry's translation group per row
-- and count the groups a chain reaches. Both are served by a per-collection index on
-- (translation_group_id, locale, id), one per view, partial on exactly the rows a list of that view reads
-- (src/collections/fallback-indexes.ts): the group look-up is one index-only descent, and the total of
-- an unfiltered list one index-only pass in group order. The application builds them CONCURRENTLY when
-- a collection is made; existing collections get them here (in the migration's transaction: on a large
-- table, build them ahead of time with the statements fallbackIndexStatements produces, CONCURRENTLY).
-- The table-wide index they replace served only the hash anti join they avoid.
DROP INDEX IF EXISTS "entries_fallback_p_x";

DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT id FROM collections LOOP
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON entries (translation_group_id, locale, id) WHERE collection_id = %s AND deleted_at IS NULL',
                   'entries_c' || r.id || '_fallback_d_x', r.id);
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON entries (translation_group_id, locale, id) WHERE collection_id = %s AND deleted_at IS NULL'
                   ' AND state = ''published'' AND published_version_id IS NOT NULL', 'entries_c' || r.id || '_fallback_p_x', r.id);
  END LOOP;
END
$$;
