-- Indexes and helpers for the list filter `where` (src/filtering, docs/filtering.md).
-- Index names end in `_x`: Prisma's schema cannot express them, so the schema-equivalence check skips them.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- Date-time field values are JSON strings; a bad one must read as "no value", not fail the query.
-- TimeZone and DateStyle are pinned so the result depends on the text alone (hence IMMUTABLE,
-- which lets per-field expression indexes use it).
CREATE OR REPLACE FUNCTION filter_try_timestamptz(v text) RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET "TimeZone" = 'UTC' SET "DateStyle" = 'ISO, YMD'
AS $fn$
BEGIN
  IF v IS NULL OR v !~ '^\d{4}-\d{2}-\d{2}' THEN
    RETURN NULL;
  END IF;
  RETURN v::timestamptz;
EXCEPTION WHEN others THEN
  RETURN NULL;
END
$fn$;

-- eq / in on scalar fields, enumerations, relations and media compile to `data @> {"field": value}`.
CREATE INDEX "entries_data_path_x" ON "entries" USING gin ("data" jsonb_path_ops);
CREATE INDEX "entries_published_data_path_x" ON "entries" USING gin ("published_data" jsonb_path_ops);

-- `like` on any text field first matches the JSON text of the whole document (one index for
-- every field), then the exact field.
CREATE INDEX "entries_data_trgm_x" ON "entries" USING gin (("data"::text) gin_trgm_ops);
CREATE INDEX "entries_published_data_trgm_x" ON "entries" USING gin (("published_data"::text) gin_trgm_ops);
