-- Entry lists (src/content/list.ts): WHERE collection_id = ? [AND locale = ?] AND state = 'published'
-- AND deleted_at IS NULL ORDER BY id, with LIMIT. Partial on live rows so trashed entries cost nothing.
-- Names end in `_x`: Prisma's schema cannot express partial indexes.
CREATE INDEX "entries_list_locale_x" ON "entries" ("collection_id", "locale", "state", "id") WHERE "deleted_at" IS NULL;
CREATE INDEX "entries_list_state_x" ON "entries" ("collection_id", "state", "id") WHERE "deleted_at" IS NULL;
