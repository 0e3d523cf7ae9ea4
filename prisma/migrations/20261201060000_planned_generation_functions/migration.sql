-- The generation and horizon functions as plpgsql, with the same results (rules: migration
-- 20261128010000).
--
-- PostgreSQL does not inline a SQL-language function whose body has a subquery, and plans such a body
-- again at every statement that calls it: authentication (cms_project_generation, on every request the
-- authentication cache does not answer) and the change feed's read of the log (cms_snapshot_horizon,
-- cms_project_generation) spent most of their function time planning. A plpgsql function keeps its
-- plans for the session, and the server's connections are long-lived. cms_collection_generations
-- stays SQL: it is inlined into the calling statement, whose plan is kept with it.

CREATE OR REPLACE FUNCTION "cms_project_generation"(pid integer) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN coalesce((SELECT g.generation FROM content_generations g WHERE g.project_id = pid), 0)
       + (SELECT count(*) FROM content_changes x WHERE x.project_id = pid);
END
$$;

CREATE OR REPLACE FUNCTION "cms_snapshot_horizon"(snap pg_snapshot) RETURNS xid8 LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN coalesce((SELECT min(x) FROM pg_snapshot_xip(snap) x
                    WHERE (x::text::bigint % 4294967296) NOT IN (SELECT a.backend_xid::text::bigint FROM pg_stat_activity a
                                                                  WHERE a.backend_xid IS NOT NULL AND a.datid IS NOT NULL
                                                                    AND a.datname IS DISTINCT FROM current_database())),
                  pg_snapshot_xmax(snap));
END
$$;
