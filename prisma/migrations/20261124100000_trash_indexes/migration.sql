-- The trash (src/content/trash.ts): a collection's trashed entries, newest first, and the retention
-- purge (src/content/trash-retention.ts), which deletes entries trashed before a cutoff. Partial on
-- trashed rows only, so live entries cost them nothing. Names end in `_x`: Prisma's schema cannot
-- express partial indexes.
CREATE INDEX "entries_trash_x" ON "entries" ("collection_id", "deleted_at", "id") WHERE "deleted_at" IS NOT NULL;
CREATE INDEX "entries_trashed_at_x" ON "entries" ("deleted_at") WHERE "deleted_at" IS NOT NULL;
