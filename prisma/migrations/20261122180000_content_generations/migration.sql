-- Content generations: a counter per project, bumped once at the commit of every transaction that
-- changes the project's entries, entry versions, assets, collections, fields or translation groups. Authentication
-- reads it with the project row, and the published-read cache keys its answers by it, so a cached
-- answer can never outlive a committed change (src/http/read-cache.ts).

-- CreateTable
CREATE TABLE "content_generations" (
    "project_id" INTEGER NOT NULL,
    "generation" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "content_generations_pkey" PRIMARY KEY ("project_id")
);

-- AddForeignKey
ALTER TABLE "content_generations" ADD CONSTRAINT "content_generations_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Why deferred row triggers: the bump takes the counter row's lock, and taking it at commit holds it
-- only for the commit itself, so concurrent writers of one project are not serialised for the whole
-- transaction (a statement-level trigger would take it at the first write). A transaction-local
-- setting makes every row after the first of a transaction skip the work.
CREATE FUNCTION "cms_bump_content_generation_x"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  pid integer;
  rec record;
BEGIN
  IF TG_OP = 'DELETE' THEN rec := OLD; ELSE rec := NEW; END IF;
  IF TG_TABLE_NAME = 'fields' THEN
    SELECT c.project_id INTO pid FROM collections c WHERE c.id = rec.collection_id;
  ELSIF TG_TABLE_NAME = 'entry_versions' THEN
    SELECT e.project_id INTO pid FROM entries e WHERE e.id = rec.entry_id;
  ELSE
    pid := rec.project_id;
  END IF;
  -- A field or version whose collection or entry this transaction deleted: that row's trigger bumps.
  IF pid IS NULL OR current_setting('cms.generation_bumped_' || pid, true) = '1' THEN
    RETURN NULL;
  END IF;
  PERFORM set_config('cms.generation_bumped_' || pid, '1', true);
  -- The project itself may be deleted by this transaction; then there is nothing to count.
  INSERT INTO content_generations AS g (project_id, generation)
    SELECT pid, 1 WHERE EXISTS (SELECT 1 FROM projects WHERE id = pid)
  ON CONFLICT (project_id) DO UPDATE SET generation = g.generation + 1;
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER "entries_content_generation_x" AFTER INSERT OR UPDATE OR DELETE ON "entries"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "cms_bump_content_generation_x"();
CREATE CONSTRAINT TRIGGER "assets_content_generation_x" AFTER INSERT OR UPDATE OR DELETE ON "assets"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "cms_bump_content_generation_x"();
CREATE CONSTRAINT TRIGGER "collections_content_generation_x" AFTER INSERT OR UPDATE OR DELETE ON "collections"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "cms_bump_content_generation_x"();
CREATE CONSTRAINT TRIGGER "fields_content_generation_x" AFTER INSERT OR UPDATE OR DELETE ON "fields"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "cms_bump_content_generation_x"();
CREATE CONSTRAINT TRIGGER "translation_groups_content_generation_x" AFTER INSERT OR UPDATE OR DELETE ON "translation_groups"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "cms_bump_content_generation_x"();
CREATE CONSTRAINT TRIGGER "entry_versions_content_generation_x" AFTER INSERT OR UPDATE OR DELETE ON "entry_versions"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "cms_bump_content_generation_x"();
