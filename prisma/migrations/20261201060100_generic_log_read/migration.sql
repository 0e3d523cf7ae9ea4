-- The change feed's read of the content change log (src/db/change-feed.ts) as a function that keeps
-- one generic plan per connection.
--
-- Sent as a named statement, the read was still planned again at every execution: PostgreSQL's
-- estimate for the generic plan (rows of the log above a horizon it cannot see, then per project
-- found) comes out far above the custom plan's, so it never switched to the generic plan, and planning
-- was most of the read's PostgreSQL time. The plans inside this function are generic whatever the
-- estimates. What it answers, and its single snapshot, are those of the statement it replaces: the
-- rows above horizon `after` not in `seen`, the oldest transaction the snapshot sees running
-- (`horizon`, the next read's lower bound), the WAL position, and each project's generations as that
-- snapshot counts them.

CREATE FUNCTION "cms_read_content_log"(after text, seen bigint[])
  RETURNS TABLE ("horizon" text, "lsn" text, "rows" json, "changes" json)
  LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH s AS MATERIALIZED (SELECT pg_current_snapshot() AS snap),
  fresh AS MATERIALIZED (
    SELECT x.id, x.project_id, x.xid FROM content_changes x
     WHERE after IS NOT NULL AND x.xid >= after::xid8 AND x.id <> ALL(seen)
  )
  SELECT cms_snapshot_horizon(s.snap)::text, pg_current_wal_lsn()::text,
         (SELECT coalesce(json_agg(json_build_array(f.id::text, f.xid::text)), '[]') FROM fresh f),
         (SELECT coalesce(json_agg(json_build_array(pp.project_id, cms_project_generation(pp.project_id)::text,
                   (SELECT coalesce(json_agg(json_build_array(g.collection_id, g.published, g.draft)), '[]') FROM cms_collection_generations(pp.project_id) g))), '[]')
            FROM (SELECT DISTINCT fr.project_id FROM fresh fr) pp)
    FROM s;
END
$$;
