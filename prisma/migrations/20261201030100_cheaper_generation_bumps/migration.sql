-- Cheaper deferred generation triggers (rules: migrations 20261126000000 and 20261130020000): the same
-- bumps, with the "already bumped in this transaction" test made before the call instead of inside it.
--
-- Every row a content statement writes queues these triggers (a bulk create of 50 published entries:
-- 50 entry rows and 50 version rows), and all but the first of each collection and kind find the
-- collection already bumped. They used to find it inside cms_bump_collection_x, whose PERFORM runs the
-- executor once per row; the test is now an inlinable expression (cms_collection_bumped_x), shared by
-- the trigger and the function, and the call is made only when it does something. An unset flag reads
-- as NULL: the test answers false for it, never NULL, as `NOT` of it must then call.

CREATE OR REPLACE FUNCTION "cms_collection_bumped_x"(cid integer, bump_published boolean) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT cid IS NULL OR coalesce(current_setting('cms.cg_' || cid || '_p', true) = '1', false)
      OR (NOT bump_published AND coalesce(current_setting('cms.cg_' || cid || '_d', true) = '1', false))
$$;
CREATE OR REPLACE FUNCTION cms_bump_collection_generations_x()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
    SELECT e.project_id, e.collection_id INTO pid, cid FROM entries e WHERE e.id = rec.entry_id;
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
$function$
;
CREATE OR REPLACE FUNCTION cms_bump_collection_x(pid integer, cid integer, bump_published boolean)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  moved integer;
BEGIN
  -- A published bump is also a draft bump, so it satisfies a later draft-only one.
  IF cms_collection_bumped_x(cid, bump_published) THEN
    RETURN;
  END IF;
  PERFORM set_config('cms.cg_' || cid || CASE WHEN bump_published THEN '_p' ELSE '_d' END, '1', true);
  -- The collection and every collection whose relation fields lead to it. A collection deleted by
  -- this transaction is not in `collections` any more: its referrers still move (their relation
  -- fields still name it), it does not.
  WITH ins AS (
    INSERT INTO content_changes (project_id, collection_id, published)
      WITH RECURSIVE reach(id) AS (
        SELECT cid
        UNION
        SELECT f.collection_id FROM fields f JOIN reach r
          ON f.type = 'relation' AND f.deleted_at IS NULL AND (f.options #>> '{relation,collection}') = r.id::text
      )
      SELECT c.project_id, c.id, bump_published FROM reach JOIN collections c ON c.id = reach.id
    RETURNING project_id
  )
  SELECT min(project_id) INTO moved FROM ins HAVING min(project_id) = max(project_id);
  -- These rows count for the project's generation: cms_bump_content_generation_x need not add its
  -- own. (Relations stay within a project, so the rows are of one project; were they not, none is marked.)
  IF moved IS NOT NULL THEN
    PERFORM set_config('cms.generation_bumped_' || moved, '1', true);
  END IF;
END
$function$
;
