-- The list filter's `like` moves from one trigram index over each whole JSON document to per-field
-- trigram indexes (src/filtering/field-indexes.ts, created with each field). Measured at a million
-- entries: the document indexes were 297 MB each, took minutes to build, and matched JSON keys too,
-- so a needle such as "Author 42" hit every post holding an "author" key (108,000 candidates for 111
-- real matches). Per-field indexes hold one field of one collection and match only its values.
DROP INDEX IF EXISTS "entries_data_trgm_x";
DROP INDEX IF EXISTS "entries_published_data_trgm_x";

-- Existing fields get the per-field indexes and statistics the application now creates for new ones.
-- Built here without CONCURRENTLY (migrations run in a transaction); on a large existing table run the
-- statements of src/filtering/field-indexes.ts (ensureCollectionIndexes) ahead of time instead.
DO $fields$
DECLARE
  f record;
  col text;
  expr text;
  name_lit text;
BEGIN
  FOR f IN
    SELECT fl.id, fl.collection_id, fl.name, fl.type, fl.options
      FROM fields fl
     WHERE fl.deleted_at IS NULL AND fl.parent_field_id IS NULL
       AND COALESCE((fl.options ->> 'repeatable')::boolean, false) = false
  LOOP
    name_lit := quote_literal(f.name) || '::text';
    FOREACH col IN ARRAY ARRAY['data', 'published_data'] LOOP
      IF f.type = 'number' THEN
        expr := format('(CASE WHEN jsonb_typeof(%I -> %s) = ''number'' THEN (%I ->> %s)::numeric END)', col, name_lit, col, name_lit);
      ELSIF (f.type = 'date' AND COALESCE(f.options ->> 'mode', 'single') <> 'range')
         OR (f.type = 'relation' AND COALESCE(f.options #>> '{relation,type}', '1') <> '2')
         OR (f.type = 'media' AND COALESCE(f.options #>> '{media,type}', '1') <> '2')
         OR f.type IN ('text', 'longtext', 'richtext', 'slug', 'email') THEN
        expr := format('(%I ->> %s)', col, name_lit);
      ELSE
        CONTINUE;
      END IF;
      IF f.type IN ('text', 'longtext', 'richtext', 'slug', 'email') THEN
        EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON entries USING gin (%s gin_trgm_ops) WHERE collection_id = %s AND deleted_at IS NULL',
          'entries_f' || f.id || '_' || left(replace(col, 'published_', 'p'), 1) || '_x', expr, f.collection_id);
      ELSE
        EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON entries (%s) WHERE collection_id = %s AND deleted_at IS NULL',
          'entries_f' || f.id || '_' || left(replace(col, 'published_', 'p'), 1) || '_x', expr, f.collection_id);
        EXECUTE format('CREATE STATISTICS IF NOT EXISTS %I ON (%s) FROM entries',
          'entries_f' || f.id || '_' || left(replace(col, 'published_', 'p'), 1) || '_stat_x', expr);
      END IF;
    END LOOP;
  END LOOP;
END
$fields$;
