-- Cheaper single-entry writes (issues 18 and 20): indexes that every write of `entries` or
-- `outbox_events` maintained for rows that no read ever finds through them. Each one becomes partial
-- on exactly the rows its readers select, so the other rows cost no index entry on insert, and none
-- again on each non-HOT update (a draft save rewrites `data`, so it is never HOT and inserts a new
-- entry into every index whose predicate the row meets). Names end in `_x`: Prisma's schema cannot
-- express partial indexes (schema.prisma drops the two `@@index` lines these replace).
--
-- Containment filters on published_data (`published_data @> …`, src/filtering/compile.ts) run only
-- in published reads, which always carry the live and published-read conditions (src/content/list.ts,
-- nested relation filters, live queries: publishedReadCondition): the same predicate as the per-field
-- `_p_` indexes. Drafts, trashed and unpublished rows, which each took a GIN null-item entry, leave it.
DROP INDEX "entries_published_data_path_x";
CREATE INDEX "entries_published_data_path_x" ON "entries" USING gin ("published_data" jsonb_path_ops)
  WHERE "deleted_at" IS NULL AND "state" = 'published' AND "published_version_id" IS NOT NULL;

-- Entries outside a translation group (most of them) were a NULL entry in this btree. Every reader
-- asks for given groups (`translation_group_id = …` / `= ANY(…)`, and the foreign key's ON DELETE SET
-- NULL), which the planner proves non-null, so the partial index serves them all.
DROP INDEX "entries_translation_group_id_idx";
CREATE INDEX "entries_translation_group_x" ON "entries" ("translation_group_id") WHERE "translation_group_id" IS NOT NULL;

-- Every event is inserted undispatched (the dispatcher finds it through outbox_events_pending_x);
-- only the retention purge (`dispatched_at < cutoff`, src/webhooks/store.ts) reads this one, and
-- only for dispatched rows. The dispatcher's UPDATE adds the entry when it marks the row.
DROP INDEX "outbox_events_dispatched_at_id_idx";
CREATE INDEX "outbox_events_dispatched_x" ON "outbox_events" ("dispatched_at", "id") WHERE "dispatched_at" IS NOT NULL;
