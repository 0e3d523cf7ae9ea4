-- Collection generations: invalidation as fine as the data allows (issue 18, README "Read cache").
--
-- Each collection gets two counters, bumped at the commit of a transaction that changes what a read
-- of that collection could show:
--   published: an entry it shows or hydrates is published, unpublished, reverted, trashed, restored,
--              deleted or moved (locale, translation group), a version of one changes, an asset changes
--              (collections with media fields), or the fields of a collection it shows or hydrates
--              change;
--   draft:     all of the above, and any change of the working drafts it shows or hydrates.
-- "Hydrates" is transitive: the collections whose relation fields lead to the written one, through
-- any number of hops, are bumped with it, because GraphQL follows relations to any depth. A draft
-- saved on an entry that was never published also bumps the published counter of the collections
-- whose relation fields to it set `includeDraft` (published reads show that draft in its place).
-- Saving a draft of a published entry bumps no published counter: published reads show nothing of
-- the working draft (docs/entries.md, "What a published read shows").
--
-- content_generations (the project-wide counter) stays as it was: it still moves with every change,
-- sends the change notification, and keys the reads that cannot name their collections.

-- AlterTable
ALTER TABLE "entries" ADD COLUMN "published_updated_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "collection_generations" (
    "collection_id" INTEGER NOT NULL,
    "project_id" INTEGER NOT NULL,
    "published" BIGINT NOT NULL DEFAULT 0,
    "draft" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "collection_generations_pkey" PRIMARY KEY ("collection_id")
);

-- CreateIndex
CREATE INDEX "collection_generations_project_id_idx" ON "collection_generations"("project_id");

-- AddForeignKey
ALTER TABLE "collection_generations" ADD CONSTRAINT "collection_generations_collection_id_fkey" FOREIGN KEY ("collection_id") REFERENCES "collections"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "collection_generations" ADD CONSTRAINT "collection_generations_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

INSERT INTO "collection_generations" ("collection_id", "project_id", "published", "draft")
  SELECT id, project_id, 1, 1 FROM "collections";

-- The time of the published version, which published reads show as `updated_at` (and sort and
-- filter by), so that saving a draft leaves every published read as it was. Set here rather than by
-- each writer so that no path that moves the published pointer can forget it.
UPDATE "entries" e SET "published_updated_at" = v."created_at"
  FROM "entry_versions" v WHERE v."id" = e."published_version_id";

CREATE FUNCTION "cms_published_updated_at_x"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.published_version_id IS NULL THEN
    NEW.published_updated_at := NULL;
  ELSIF TG_OP = 'INSERT' OR NEW.published_version_id IS DISTINCT FROM OLD.published_version_id
        OR NEW.published_data IS DISTINCT FROM OLD.published_data THEN
    NEW.published_updated_at := NEW.updated_at;
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER "entries_published_updated_at_x" BEFORE INSERT OR UPDATE ON "entries"
  FOR EACH ROW EXECUTE FUNCTION "cms_published_updated_at_x"();

-- Bumps collection `cid` of project `pid` (published and draft, or draft only) and every collection
-- whose relation fields lead to it, once per transaction per (collection, kind): a bulk write of 50
-- rows bumps once.
CREATE FUNCTION "cms_bump_collection_x"(pid integer, cid integer, bump_published boolean) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  -- A published bump is also a draft bump, so it satisfies a later draft-only one.
  IF cid IS NULL OR current_setting('cms.cg_' || cid || '_p', true) = '1'
     OR (NOT bump_published AND current_setting('cms.cg_' || cid || '_d', true) = '1') THEN
    RETURN;
  END IF;
  PERFORM set_config('cms.cg_' || cid || CASE WHEN bump_published THEN '_p' ELSE '_d' END, '1', true);
  -- One transaction may bump several collections' rows, in any order; taking the project's counter
  -- row first (which the project trigger updates at this same commit anyway) gives every writer of a
  -- project one lock order (once the project has that row, i.e. from its first write on), so two
  -- commits cannot deadlock on these rows. A null pid is a field or
  -- version of a collection or entry this transaction deleted, whose own trigger took the lock.
  IF pid IS NOT NULL THEN
    PERFORM 1 FROM content_generations WHERE project_id = pid FOR UPDATE;
  END IF;
  -- A collection deleted by this transaction is not in `collections` any more: its referrers still
  -- move (their relation fields still name it), it does not.
  INSERT INTO collection_generations AS g (collection_id, project_id, published, draft)
    WITH RECURSIVE reach(id) AS (
      SELECT cid
      UNION
      SELECT f.collection_id FROM fields f JOIN reach r
        ON f.type = 'relation' AND f.deleted_at IS NULL AND (f.options #>> '{relation,collection}') = r.id::text
    )
    SELECT c.id, c.project_id, CASE WHEN bump_published THEN 1 ELSE 0 END, 1 FROM reach JOIN collections c ON c.id = reach.id
    ORDER BY c.id
  ON CONFLICT (collection_id) DO UPDATE
    SET published = g.published + CASE WHEN bump_published THEN 1 ELSE 0 END, draft = g.draft + 1;
END
$$;

CREATE FUNCTION "cms_bump_collection_generations_x"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rec record;
  pid integer;
  cid integer;
  published_change boolean;
  referrer integer;
BEGIN
  IF TG_OP = 'DELETE' THEN rec := OLD; ELSE rec := NEW; END IF;
  IF TG_TABLE_NAME = 'entries' THEN
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
    PERFORM cms_bump_collection_x(rec.project_id, cid, published_change);
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
    SELECT e.project_id, e.collection_id INTO pid, cid FROM entries e WHERE e.id = rec.entry_id;
    PERFORM cms_bump_collection_x(pid, cid, true);
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

-- Deferred to the commit for the same reason as the project counter (migration 20261122180000): the
-- counter rows' locks are then held only for the commit itself.
CREATE CONSTRAINT TRIGGER "entries_collection_generations_x" AFTER INSERT OR UPDATE OR DELETE ON "entries"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "cms_bump_collection_generations_x"();
CREATE CONSTRAINT TRIGGER "entry_versions_collection_generations_x" AFTER INSERT OR UPDATE OR DELETE ON "entry_versions"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "cms_bump_collection_generations_x"();
CREATE CONSTRAINT TRIGGER "fields_collection_generations_x" AFTER INSERT OR UPDATE OR DELETE ON "fields"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "cms_bump_collection_generations_x"();
CREATE CONSTRAINT TRIGGER "collections_collection_generations_x" AFTER INSERT OR UPDATE OR DELETE ON "collections"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "cms_bump_collection_generations_x"();
-- Not on INSERT: entries can only name assets that exist (src/content/references.ts), so a new asset
-- is in no read yet.
CREATE CONSTRAINT TRIGGER "assets_collection_generations_x" AFTER UPDATE OR DELETE ON "assets"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "cms_bump_collection_generations_x"();

CREATE TRIGGER "collection_generations_notify_truncate_x" AFTER TRUNCATE ON "collection_generations" FOR EACH STATEMENT EXECUTE FUNCTION "cms_notify_truncate_x"();
