-- Indexes and helpers for the list filter `where` (src/filtering, docs/filtering.md).
-- Index names end in `_x`: Prisma's schema cannot express them, so the schema-equivalence check skips them.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- eq / in on scalar fields, enumerations, relations and media compile to `data @> {"field": value}`.
CREATE INDEX "entries_data_path_x" ON "entries" USING gin ("data" jsonb_path_ops);
CREATE INDEX "entries_published_data_path_x" ON "entries" USING gin ("published_data" jsonb_path_ops);

-- `like` on any text field first matches the JSON text of the whole document (one index for
-- every field), then the exact field.
CREATE INDEX "entries_data_trgm_x" ON "entries" USING gin (("data"::text) gin_trgm_ops);
CREATE INDEX "entries_published_data_trgm_x" ON "entries" USING gin (("published_data"::text) gin_trgm_ops);
