-- Entries are stored LIST-partitioned by collection: one table per collection (entries_c<id>),
-- each carrying only its own fields' indexes and statistics. A statement that names its collection
-- is planned over that one partition, and a write maintains only that partition's indexes, so the
-- cost of a request no longer grows with the fields of every other collection on the server
-- (docs/architecture.md, "Entry storage"; src/collections/partitions.ts names the partitions).

-- Deferred triggers fire at once: a table cannot be altered while events of it are pending.
SET CONSTRAINTS ALL IMMEDIATE;

-- 1. The partitioned table (its partitions are made in step 5, once its indexes exist).
CREATE TABLE "entries_by_collection" (LIKE "entries" INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMPRESSION)
  PARTITION BY LIST ("collection_id");

-- 2. What moves to the partitions: each per-collection index (partial on `collection_id = N`) and
-- each field's extended statistics, as their current definitions.
CREATE TEMP TABLE "moved_definitions" ON COMMIT DROP AS
  SELECT (regexp_match(pg_get_expr(i.indpred, i.indrelid), 'collection_id = (\d+)'))[1]::int AS collection_id,
         pg_get_indexdef(i.indexrelid) AS def, 'index' AS kind
    FROM pg_index i
   WHERE i.indrelid = 'entries'::regclass AND i.indpred IS NOT NULL
     AND pg_get_expr(i.indpred, i.indrelid) ~ 'collection_id = \d+'
  UNION ALL
  SELECT f.collection_id, pg_get_statisticsobjdef(s.oid), 'statistics'
    FROM pg_statistic_ext s
    JOIN "fields" f ON f.id = (regexp_match(s.stxname, '^entries_f(\d+)_'))[1]::int
   WHERE s.stxrelid = 'entries'::regclass;

-- 3. Versions name their entry's collection, so a rule that reaches the entry from a version
-- names its partition. The old table goes; its sequence stays (ids are never reused).
ALTER TABLE "entry_versions" ADD COLUMN "collection_id" INTEGER;
UPDATE "entry_versions" v SET "collection_id" = e."collection_id" FROM "entries" e WHERE e."id" = v."entry_id";
DELETE FROM "entry_versions" WHERE "collection_id" IS NULL;
ALTER TABLE "entry_versions" ALTER COLUMN "collection_id" SET NOT NULL;
ALTER TABLE "entry_versions" DROP CONSTRAINT "entry_versions_entry_id_fkey";
ALTER SEQUENCE "entries_id_seq" OWNED BY NONE;
ALTER TABLE "entries" RENAME TO "entries_old";
ALTER TABLE "entries_by_collection" RENAME TO "entries";
ALTER SEQUENCE "entries_id_seq" OWNED BY "entries"."id";
-- The old table's index names are taken back by the new ones below.
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'entries_old'::regclass LOOP
    EXECUTE format('ALTER INDEX %I RENAME TO %I', r.relname, 'old_' || r.relname);
  END LOOP;
  FOR r IN SELECT conname FROM pg_constraint WHERE conrelid = 'entries_old'::regclass AND contype = 'p' LOOP
    EXECUTE format('ALTER TABLE "entries_old" RENAME CONSTRAINT %I TO %I', r.conname, 'old_' || r.conname);
  END LOOP;
END $$;

-- 4. The fixed indexes, on every partition. A unique index of a partitioned table must hold the
-- partition key: uuids and version pointers are unique within a collection (uuids are random, and
-- every read names its collection).
ALTER TABLE "entries" ADD CONSTRAINT "entries_pkey" PRIMARY KEY ("collection_id", "id");
CREATE UNIQUE INDEX "entries_uuid_key" ON "entries" ("uuid", "collection_id");
CREATE UNIQUE INDEX "entries_published_version_id_key" ON "entries" ("published_version_id", "collection_id");
CREATE INDEX "entries_collection_id_locale_id_idx" ON "entries" ("collection_id", "locale", "id");
CREATE INDEX "entries_project_id_idx" ON "entries" ("project_id");
CREATE INDEX "entries_data_path_x" ON "entries" USING gin ("data" jsonb_path_ops);
CREATE INDEX "entries_published_data_path_x" ON "entries" USING gin ("published_data" jsonb_path_ops)
  WHERE "deleted_at" IS NULL AND "state" = 'published' AND "published_version_id" IS NOT NULL;
CREATE INDEX "entries_list_locale_x" ON "entries" ("collection_id", "locale", "state", "id") WHERE "deleted_at" IS NULL;
CREATE INDEX "entries_list_state_x" ON "entries" ("collection_id", "state", "id") WHERE "deleted_at" IS NULL;
CREATE INDEX "entries_translation_group_x" ON "entries" ("translation_group_id") WHERE "translation_group_id" IS NOT NULL;
CREATE INDEX "entries_trash_x" ON "entries" ("collection_id", "deleted_at", "id") WHERE "deleted_at" IS NOT NULL;
CREATE INDEX "entries_trashed_at_x" ON "entries" ("deleted_at") WHERE "deleted_at" IS NOT NULL;

-- 5. One partition per collection, made as every later one is, then the rows; then the
-- per-collection indexes and statistics, now on their collection's partition.
-- A partition's copy of each index of `entries` is named `<index>_c<collection id>`
-- (entries_uuid_key_c12), so a plan names the index it uses whichever partition it reads. The table
-- is made on its own and then attached: ATTACH takes SHARE UPDATE EXCLUSIVE on `entries`, which
-- blocks no read or write of another collection, where CREATE TABLE ... PARTITION OF would take
-- ACCESS EXCLUSIVE. Attaching adopts the indexes made here instead of building its own.
CREATE FUNCTION "cms_entries_partition_x"(cid integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  part text := 'entries_c' || cid;
  ix record;
BEGIN
  IF EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass(quote_ident(part))) THEN RETURN; END IF;
  EXECUTE format('CREATE TABLE IF NOT EXISTS %I (LIKE "entries" INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMPRESSION)', part);
  EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK ("collection_id" = %s)', part, part || '_collection_x', cid);
  FOR ix IN
    SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def, i.indisprimary AS primary_key
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE i.indrelid = 'entries'::regclass
  LOOP
    IF ix.primary_key THEN
      EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY ("collection_id", "id")', part, ix.name || '_c' || cid);
    ELSE
      EXECUTE regexp_replace(
        regexp_replace(ix.def, ' INDEX (\S+) ON ONLY (public\.)?entries ', format(' INDEX %I ON public.%I ', ix.name || '_c' || cid, part)),
        '^CREATE', 'CREATE');
    END IF;
  END LOOP;
  EXECUTE format('ALTER TABLE "entries" ATTACH PARTITION %I FOR VALUES IN (%s)', part, cid);
  -- The check only let ATTACH skip its scan; the partition bound says the same.
  EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', part, part || '_collection_x');
END $$;

SELECT "cms_entries_partition_x"(id) FROM "collections" ORDER BY id;
INSERT INTO "entries" SELECT * FROM "entries_old";

DO $$
DECLARE d record;
BEGIN
  FOR d IN SELECT * FROM "moved_definitions" m WHERE EXISTS (SELECT 1 FROM "collections" c WHERE c.id = m.collection_id) LOOP
    IF d.kind = 'index' THEN
      EXECUTE regexp_replace(d.def, ' ON (public\.)?entries ', format(' ON public.%I ', 'entries_c' || d.collection_id));
    ELSE
      EXECUTE regexp_replace(d.def, ' FROM (public\.)?entries$', format(' FROM public.%I', 'entries_c' || d.collection_id));
    END IF;
  END LOOP;
END $$;

DROP TABLE "entries_old";

-- 6. References. Only the collection's cascade stays a foreign key: its action statement names the
-- partition key, so it is planned over one partition. The others would run a statement over every
-- partition on each referenced row's delete, and are kept by the one writer instead: versions go
-- with their entry (trigger below), entries go with their collection (and so with their project),
-- translation groups are only deleted with their project, and versions are only pruned by the
-- statement that moves the published pointer to the new version (src/entries/store/version-statement.ts).
ALTER TABLE "entries" ADD CONSTRAINT "entries_collection_id_fkey"
  FOREIGN KEY ("collection_id") REFERENCES "collections"("id") ON UPDATE CASCADE ON DELETE CASCADE;

-- 7. Generation bumps: row triggers of `entries` now fire on its partitions, whose names are
-- entries_c<id>, and a version names its collection.
CREATE OR REPLACE FUNCTION cms_bump_collection_generations_x()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  rec record;
  pid integer;
  cid integer;
  published_change boolean;
  referrer integer;
BEGIN
  IF TG_OP = 'DELETE' THEN rec := OLD; ELSE rec := NEW; END IF;
  -- Row triggers of `entries` fire on its partitions (entries_c<collection id>).
  IF starts_with(TG_TABLE_NAME, 'entries_c') THEN
    cid := rec.collection_id;
    IF TG_OP = 'UPDATE' THEN
      -- Every column a published read shows or selects by, except the working draft's own
      -- (data, is_draft_dirty, updated_at, last_version_number). A new column of `entries` that a
      -- published read shows must be added here.
      published_change := OLD.published_data IS DISTINCT FROM NEW.published_data
        OR OLD.published_version_id IS DISTINCT FROM NEW.published_version_id
        OR OLD.published_version_number IS DISTINCT FROM NEW.published_version_number
        OR OLD.published_updated_at IS DISTINCT FROM NEW.published_updated_at
        OR OLD.published_at IS DISTINCT FROM NEW.published_at
        OR OLD.state IS DISTINCT FROM NEW.state
        OR OLD.locale IS DISTINCT FROM NEW.locale
        OR OLD.translation_group_id IS DISTINCT FROM NEW.translation_group_id
        OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at
        OR OLD.created_at IS DISTINCT FROM NEW.created_at
        OR OLD.uuid IS DISTINCT FROM NEW.uuid
        OR OLD.collection_id IS DISTINCT FROM NEW.collection_id;
      IF OLD.collection_id IS DISTINCT FROM NEW.collection_id THEN
        PERFORM cms_bump_collection_x(rec.project_id, OLD.collection_id, true);
      END IF;
    ELSE
      published_change := rec.published_version_id IS NOT NULL;
    END IF;
    IF NOT cms_collection_bumped_x(cid, published_change) THEN
      PERFORM cms_bump_collection_x(rec.project_id, cid, published_change);
    END IF;
    -- A working draft that published reads show in place of a never-published target (includeDraft).
    IF NOT published_change AND rec.published_version_id IS NULL AND current_setting('cms.cg_' || cid || '_i', true) IS DISTINCT FROM '1' THEN
      PERFORM set_config('cms.cg_' || cid || '_i', '1', true);
      FOR referrer IN
        SELECT DISTINCT f.collection_id FROM fields f
         WHERE f.type = 'relation' AND f.deleted_at IS NULL AND f.options -> 'includeDraft' = 'true'::jsonb
           AND (f.options #>> '{relation,collection}') = cid::text
      LOOP
        PERFORM cms_bump_collection_x(rec.project_id, referrer, true);
      END LOOP;
    END IF;
  ELSIF TG_TABLE_NAME = 'entry_versions' THEN
    cid := rec.collection_id;
    SELECT c.project_id INTO pid FROM collections c WHERE c.id = cid;
    IF NOT cms_collection_bumped_x(cid, true) THEN
      PERFORM cms_bump_collection_x(pid, cid, true);
    END IF;
  ELSIF TG_TABLE_NAME = 'fields' THEN
    SELECT c.project_id INTO pid FROM collections c WHERE c.id = rec.collection_id;
    PERFORM cms_bump_collection_x(pid, rec.collection_id, true);
  ELSIF TG_TABLE_NAME = 'collections' THEN
    PERFORM cms_bump_collection_x(rec.project_id, rec.id, true);
  ELSIF TG_TABLE_NAME = 'assets' THEN
    -- Media values are asset UUIDs rendered as asset objects: every collection with a media field
    -- (and so every collection hydrating one) may show the asset. Assets change rarely.
    FOR referrer IN
      SELECT DISTINCT f.collection_id FROM fields f JOIN collections c ON c.id = f.collection_id
       WHERE c.project_id = rec.project_id AND f.type = 'media' AND f.deleted_at IS NULL
    LOOP
      PERFORM cms_bump_collection_x(rec.project_id, referrer, true);
    END LOOP;
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION cms_bump_content_generation_x()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  pid integer;
  rec record;
BEGIN
  IF TG_OP = 'DELETE' THEN rec := OLD; ELSE rec := NEW; END IF;
  IF TG_TABLE_NAME = 'fields' THEN
    SELECT c.project_id INTO pid FROM collections c WHERE c.id = rec.collection_id;
  ELSIF TG_TABLE_NAME = 'entry_versions' THEN
    SELECT c.project_id INTO pid FROM collections c WHERE c.id = rec.collection_id;
  ELSE
    pid := rec.project_id;
  END IF;
  -- A collection's row names the slug cached authentications map generations by: a change to one
  -- (the API also moves the project's schema revision, plain SQL may not) drops them all. Rare.
  IF TG_TABLE_NAME = 'collections' THEN
    PERFORM pg_notify('cms_changes', 'p:' || rec.project_id);
  END IF;
  -- A field or version whose collection or entry this transaction deleted: that row's trigger counts.
  IF pid IS NULL OR current_setting('cms.generation_bumped_' || pid, true) = '1' THEN
    RETURN NULL;
  END IF;
  PERFORM set_config('cms.generation_bumped_' || pid, '1', true);
  INSERT INTO content_changes (project_id, collection_id, published) VALUES (pid, NULL, false);
  RETURN NULL;
END
$$;


-- 8. The rules of the table, as before, plus the one that replaces the versions' foreign key and the
-- one that gives each new collection its partition.
CREATE CONSTRAINT TRIGGER "entries_collection_generations_x" AFTER INSERT OR UPDATE OR DELETE ON "entries"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "cms_bump_collection_generations_x"();
CREATE CONSTRAINT TRIGGER "entries_content_generation_x" AFTER INSERT OR UPDATE OR DELETE ON "entries"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "cms_bump_content_generation_x"();
CREATE TRIGGER "entries_notify_truncate_x" AFTER TRUNCATE ON "entries" FOR EACH STATEMENT EXECUTE FUNCTION "cms_notify_truncate_x"();
CREATE TRIGGER "entries_published_updated_at_x" BEFORE INSERT OR UPDATE ON "entries"
  FOR EACH ROW EXECUTE FUNCTION "cms_published_updated_at_x"();
CREATE TRIGGER "entries_search_x" BEFORE INSERT OR UPDATE OF "data", "published_data", "locale", "collection_id" ON "entries"
  FOR EACH ROW EXECUTE FUNCTION "cms_entry_search_x"();

CREATE FUNCTION "cms_entry_versions_cascade_x"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "entry_versions" WHERE "entry_id" = OLD."id";
  RETURN NULL;
END $$;
CREATE TRIGGER "entries_versions_cascade_x" AFTER DELETE ON "entries" FOR EACH ROW EXECUTE FUNCTION "cms_entry_versions_cascade_x"();

-- A new collection gets its partition in the same transaction (cms_entries_partition_x above).
CREATE FUNCTION "cms_collection_partition_x"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "cms_entries_partition_x"(NEW."id");
  RETURN NULL;
END $$;
CREATE TRIGGER "collections_partition_x" AFTER INSERT ON "collections" FOR EACH ROW EXECUTE FUNCTION "cms_collection_partition_x"();
