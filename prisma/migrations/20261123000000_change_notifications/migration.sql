-- Change notifications: every commit that can change what authentication answers for a project (its
-- row, its tokens, its content generation) also sends NOTIFY on "cms_changes" with payload `p:<id>`.
-- Servers LISTEN and drop their in-process authentication entries for that project
-- (src/auth/auth-cache.ts), so a cached request costs no round trip and still sees a commit made on
-- any replica, by any process, within the notification's delay. NOTIFY is transactional: a rolled
-- back transaction sends nothing, and a listener never hears of a change before it is visible.
-- TRUNCATE fires no row triggers, so the tables also send `*` (forget everything) when truncated.

CREATE OR REPLACE FUNCTION "cms_bump_content_generation_x"() RETURNS trigger LANGUAGE plpgsql AS $$
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
  PERFORM pg_notify('cms_changes', 'p:' || pid);
  RETURN NULL;
END
$$;

CREATE FUNCTION "cms_notify_project_change_x"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rec record;
BEGIN
  IF TG_OP = 'DELETE' THEN rec := OLD; ELSE rec := NEW; END IF;
  IF TG_TABLE_NAME = 'projects' THEN
    PERFORM pg_notify('cms_changes', 'p:' || rec.id);
  ELSE
    PERFORM pg_notify('cms_changes', 'p:' || rec.project_id);
    -- A token moved between projects (not something the API does) must leave its old project too.
    IF TG_OP = 'UPDATE' AND OLD.project_id <> NEW.project_id THEN
      PERFORM pg_notify('cms_changes', 'p:' || OLD.project_id);
    END IF;
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION "cms_notify_truncate_x"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('cms_changes', '*');
  RETURN NULL;
END
$$;

CREATE TRIGGER "projects_notify_change_x" AFTER UPDATE OR DELETE ON "projects"
  FOR EACH ROW EXECUTE FUNCTION "cms_notify_project_change_x"();
-- last_used_at is bookkeeping, not something authentication answers from.
CREATE TRIGGER "api_tokens_notify_change_x" AFTER INSERT OR DELETE OR UPDATE OF "project_id", "token_hash", "abilities", "revoked_at" ON "api_tokens"
  FOR EACH ROW EXECUTE FUNCTION "cms_notify_project_change_x"();

CREATE TRIGGER "projects_notify_truncate_x" AFTER TRUNCATE ON "projects" FOR EACH STATEMENT EXECUTE FUNCTION "cms_notify_truncate_x"();
CREATE TRIGGER "api_tokens_notify_truncate_x" AFTER TRUNCATE ON "api_tokens" FOR EACH STATEMENT EXECUTE FUNCTION "cms_notify_truncate_x"();
CREATE TRIGGER "content_generations_notify_truncate_x" AFTER TRUNCATE ON "content_generations" FOR EACH STATEMENT EXECUTE FUNCTION "cms_notify_truncate_x"();
CREATE TRIGGER "entries_notify_truncate_x" AFTER TRUNCATE ON "entries" FOR EACH STATEMENT EXECUTE FUNCTION "cms_notify_truncate_x"();
CREATE TRIGGER "entry_versions_notify_truncate_x" AFTER TRUNCATE ON "entry_versions" FOR EACH STATEMENT EXECUTE FUNCTION "cms_notify_truncate_x"();
CREATE TRIGGER "assets_notify_truncate_x" AFTER TRUNCATE ON "assets" FOR EACH STATEMENT EXECUTE FUNCTION "cms_notify_truncate_x"();
CREATE TRIGGER "collections_notify_truncate_x" AFTER TRUNCATE ON "collections" FOR EACH STATEMENT EXECUTE FUNCTION "cms_notify_truncate_x"();
CREATE TRIGGER "fields_notify_truncate_x" AFTER TRUNCATE ON "fields" FOR EACH STATEMENT EXECUTE FUNCTION "cms_notify_truncate_x"();
CREATE TRIGGER "translation_groups_notify_truncate_x" AFTER TRUNCATE ON "translation_groups" FOR EACH STATEMENT EXECUTE FUNCTION "cms_notify_truncate_x"();
