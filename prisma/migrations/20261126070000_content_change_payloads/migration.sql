-- Content changes carry their new generations in the change notification, and no longer make the
-- servers forget the project's authentication (issue 18, the mixed scenario).
--
-- Before: every content commit sent `p:<project>`, the same notification as a token or project
-- change, so every server dropped the project's cached authentications and the next request of every
-- token paid the authentication statement again, only to learn the new generations. Now a content
-- commit sends what changed instead:
--   c:<project>:<generation>                        the project-wide counter after this commit;
--   g:<project>:<collection>.<published>.<draft>,…  each collection counter this commit moved.
-- Servers raise the generations of their cached authentications to these values (counters only grow,
-- so applying the larger value is right whatever order two servers hear two commits in) and keep
-- them. Token and project changes still send `p:<project>` and still drop everything at once.
-- A server that does not know these payloads treats them as "forget everything" (src/db/change-feed.ts).

CREATE OR REPLACE FUNCTION "cms_bump_content_generation_x"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  pid integer;
  rec record;
  gen bigint;
BEGIN
  IF TG_OP = 'DELETE' THEN rec := OLD; ELSE rec := NEW; END IF;
  IF TG_TABLE_NAME = 'fields' THEN
    SELECT c.project_id INTO pid FROM collections c WHERE c.id = rec.collection_id;
  ELSIF TG_TABLE_NAME = 'entry_versions' THEN
    SELECT e.project_id INTO pid FROM entries e WHERE e.id = rec.entry_id;
  ELSE
    pid := rec.project_id;
  END IF;
  -- A collection's row names the slug cached authentications map generations by: a change to one
  -- (the API also moves the project's schema revision, plain SQL may not) drops them all.
  IF TG_TABLE_NAME = 'collections' THEN
    PERFORM pg_notify('cms_changes', 'p:' || rec.project_id);
  END IF;
  -- A field or version whose collection or entry this transaction deleted: that row's trigger bumps.
  IF pid IS NULL OR current_setting('cms.generation_bumped_' || pid, true) = '1' THEN
    RETURN NULL;
  END IF;
  PERFORM set_config('cms.generation_bumped_' || pid, '1', true);
  -- The project itself may be deleted by this transaction; then there is nothing to count (and its
  -- own trigger tells the servers).
  INSERT INTO content_generations AS g (project_id, generation)
    SELECT pid, 1 WHERE EXISTS (SELECT 1 FROM projects WHERE id = pid)
  ON CONFLICT (project_id) DO UPDATE SET generation = g.generation + 1
  RETURNING g.generation INTO gen;
  IF gen IS NOT NULL THEN
    PERFORM pg_notify('cms_changes', 'c:' || pid || ':' || gen);
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION "cms_bump_collection_x"(pid integer, cid integer, bump_published boolean) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  payload text;
  owner integer;
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
  WITH RECURSIVE reach(id) AS (
    SELECT cid
    UNION
    SELECT f.collection_id FROM fields f JOIN reach r
      ON f.type = 'relation' AND f.deleted_at IS NULL AND (f.options #>> '{relation,collection}') = r.id::text
  ), bumped AS (
    INSERT INTO collection_generations AS g (collection_id, project_id, published, draft)
      SELECT c.id, c.project_id, CASE WHEN bump_published THEN 1 ELSE 0 END, 1 FROM reach JOIN collections c ON c.id = reach.id
      ORDER BY c.id
    ON CONFLICT (collection_id) DO UPDATE
      SET published = g.published + CASE WHEN bump_published THEN 1 ELSE 0 END, draft = g.draft + 1
    RETURNING g.collection_id, g.project_id, g.published, g.draft
  )
  SELECT min(project_id), string_agg(collection_id || '.' || published || '.' || draft, ',') INTO owner, payload FROM bumped;
  IF payload IS NULL THEN
    RETURN;
  END IF;
  -- NOTIFY payloads stop short of 8000 bytes; a change that moved that many collections makes the
  -- servers forget the project instead.
  IF length(payload) > 7000 THEN
    PERFORM pg_notify('cms_changes', 'p:' || owner);
  ELSE
    PERFORM pg_notify('cms_changes', 'g:' || owner || ':' || payload);
  END IF;
END
$$;
