-- One row in the content change log per moved key, not one more for the project.
--
-- A project's generation is the count of all its rows in `content_changes` (cms_project_generation),
-- the collection rows included, yet every content commit also inserted a project-wide row (collection_id
-- NULL): a publish wrote two rows where one moves the same generations. Every generation read (each
-- authentication after a write, each read of the log by every server's change feed) counts these rows,
-- so their number is what those reads cost.
--
-- Now the collection trigger, which fires first at the commit (constraint triggers of one event fire
-- in name order: `…_collection_generations_x` before `…_content_generation_x`), marks each project it
-- wrote a row for, and the project trigger, which already skips a project marked by an earlier row of
-- the transaction, inserts the project-wide row only for commits that moved no collection (a
-- translation group change, a write into a collection the same transaction deleted). Whatever the
-- firing order, every content commit still adds at least one row of its project, so the project's
-- generation still moves with every content commit.

CREATE OR REPLACE FUNCTION "cms_bump_collection_x"(pid integer, cid integer, bump_published boolean) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  moved integer;
BEGIN
  -- A published bump is also a draft bump, so it satisfies a later draft-only one.
  IF cid IS NULL OR current_setting('cms.cg_' || cid || '_p', true) = '1'
     OR (NOT bump_published AND current_setting('cms.cg_' || cid || '_d', true) = '1') THEN
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
$$;
