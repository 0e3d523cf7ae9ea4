-- Locale fallback chains: per project, the locale each locale's reads fall back to when a read asks
-- for fallback (docs/entries.md, "Locale fallback"). A map `{ "de-at": "de", "de": "en" }`; a locale
-- without a key has no fallback. On the project row, so authentication reads it with the project and
-- a change moves `updated_at`, which every read-cache key holds.
ALTER TABLE "projects" ADD COLUMN IF NOT EXISTS "locale_fallbacks" JSONB NOT NULL DEFAULT '{}';
