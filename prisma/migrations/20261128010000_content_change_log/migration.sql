-- Content changes as an insert-only log: writes of one project no longer queue behind one row.
--
-- Before, every content commit updated the project's `content_generations` row and its collections'
-- `collection_generations` rows from deferred triggers, taking the project row FOR UPDATE first, so
-- every writer of a project held that row from its commit triggers to the end of its commit and the
-- next one waited; and each sent pg_notify, which takes a cluster-wide lock at commit, so commits of
-- every project queued behind each other too.
--
-- Now the same triggers (same rules, same once-per-transaction flags) insert rows into
-- `content_changes` instead: one per project per transaction (collection_id NULL), and one per
-- (collection, published or draft) it moves. An insert takes no lock another writer needs, and the
-- triggers notify nothing. A generation is a COUNT: the base row's value plus the log rows of that
-- key. Every commit that moves a key adds a row, and a snapshot sees a superset of what any earlier
-- snapshot saw, so two reads that see the same count for a key saw the same commits (a max of ids
-- would not do: ids are drawn before commit, so a commit can land below an id already seen). Counts
-- only grow, so holders that raise cached values to the larger one stay right in any order.
--
-- Servers learn of changes by reading the log (src/db/change-feed.ts) past a snapshot horizon,
-- woken by a NOTIFY hint writers send after their commit, and by a short poll. A compaction
-- (`cms_compact_content_changes`, one caller at a time) folds rows every server has had time to
-- read into the base rows, so the counts stay cheap.

CREATE TABLE "content_changes" (
    "id" BIGSERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    -- NULL: the project-wide row (every content commit writes one).
    "collection_id" INTEGER,
    -- Whether published reads of the collection may change (a draft-only change moves the draft count only).
    "published" BOOLEAN NOT NULL,
    "xid" xid8 NOT NULL DEFAULT pg_current_xact_id(),

    CONSTRAINT "content_changes_pkey" PRIMARY KEY ("id")
);
-- No foreign keys: a key check would lock the project's or collection's row against its deletion,
-- and a row of a deleted project or collection is simply dropped by the compaction.
CREATE INDEX "content_changes_project_x" ON "content_changes" ("project_id", "collection_id") INCLUDE ("published");
CREATE INDEX "content_changes_xid_x" ON "content_changes" ("xid");

-- What the compaction may fold: the horizon it saw at each run, so that it folds only rows of
-- transactions that had ended `keep_seconds` before (every change feed has read them since).
CREATE TABLE "content_change_marks" (
    "at" TIMESTAMPTZ(6) NOT NULL,
    "horizon" xid8 NOT NULL,

    CONSTRAINT "content_change_marks_pkey" PRIMARY KEY ("at")
);

-- The oldest transaction of this database that `snap` sees as running (its xmax when none): no
-- transaction below it can still commit. Transactions of other databases of the cluster cannot
-- write this log and are left out (one slow statement there would hold the horizon for everyone),
-- but only those pg_stat_activity names as another database's: the error is on the side of waiting.
CREATE FUNCTION "cms_snapshot_horizon"(snap pg_snapshot) RETURNS xid8 LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT min(x) FROM pg_snapshot_xip(snap) x
                    WHERE (x::text::bigint % 4294967296) NOT IN (SELECT a.backend_xid::text::bigint FROM pg_stat_activity a
                                                                  WHERE a.backend_xid IS NOT NULL AND a.datid IS NOT NULL
                                                                    AND a.datname IS DISTINCT FROM current_database())),
                  pg_snapshot_xmax(snap))
$$;

-- The project-wide generation: every content commit of the project moves it.
CREATE FUNCTION "cms_project_generation"(pid integer) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT g.generation FROM content_generations g WHERE g.project_id = pid), 0)
       + (SELECT count(*) FROM content_changes x WHERE x.project_id = pid)
$$;

-- Each collection's published and draft generations (a published change also counts as a draft one).
CREATE FUNCTION "cms_collection_generations"(pid integer)
  RETURNS TABLE ("collection_id" integer, "slug" text, "published" bigint, "draft" bigint) LANGUAGE sql STABLE AS $$
  SELECT c.id, c.slug, coalesce(g.published, 0) + coalesce(l.published, 0), coalesce(g.draft, 0) + coalesce(l.draft, 0)
    FROM collections c
    LEFT JOIN collection_generations g ON g.collection_id = c.id
    LEFT JOIN (SELECT x.collection_id, count(*) FILTER (WHERE x.published) AS published, count(*) AS draft
                 FROM content_changes x WHERE x.project_id = pid AND x.collection_id IS NOT NULL
                GROUP BY x.collection_id) l ON l.collection_id = c.id
   WHERE c.project_id = pid
$$;

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

CREATE OR REPLACE FUNCTION "cms_bump_collection_x"(pid integer, cid integer, bump_published boolean) RETURNS void LANGUAGE plpgsql AS $$
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
  INSERT INTO content_changes (project_id, collection_id, published)
    WITH RECURSIVE reach(id) AS (
      SELECT cid
      UNION
      SELECT f.collection_id FROM fields f JOIN reach r
        ON f.type = 'relation' AND f.deleted_at IS NULL AND (f.options #>> '{relation,collection}') = r.id::text
    )
    SELECT c.project_id, c.id, bump_published FROM reach JOIN collections c ON c.id = reach.id;
END
$$;

-- Folds the log rows of transactions that ended at least `keep_seconds` ago into the base rows
-- (content_generations, collection_generations), keeping every count as it was; rows of deleted
-- projects and collections just go. One caller at a time (the others return at once); the base
-- rows are written by nothing else, and readers do not lock them. Answers the rows folded.
CREATE FUNCTION "cms_compact_content_changes"(keep_seconds integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  cutoff xid8;
  cutoff_at timestamptz;
  n integer;
BEGIN
  IF NOT pg_try_advisory_xact_lock(72707371) THEN
    RETURN 0;
  END IF;
  INSERT INTO content_change_marks (at, horizon) VALUES (clock_timestamp(), cms_snapshot_horizon(pg_current_snapshot()))
    ON CONFLICT (at) DO NOTHING;
  SELECT m.at, m.horizon INTO cutoff_at, cutoff FROM content_change_marks m
   WHERE m.at < clock_timestamp() - make_interval(secs => keep_seconds) ORDER BY m.at DESC LIMIT 1;
  IF cutoff IS NULL THEN
    RETURN 0;
  END IF;
  DELETE FROM content_change_marks WHERE at < cutoff_at;
  WITH gone AS (
    DELETE FROM content_changes WHERE xid < cutoff RETURNING project_id, collection_id, published
  ), projects_moved AS (
    INSERT INTO content_generations AS g (project_id, generation)
      SELECT x.project_id, count(*) FROM gone x WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = x.project_id) GROUP BY x.project_id
    ON CONFLICT (project_id) DO UPDATE SET generation = g.generation + EXCLUDED.generation
  ), collections_moved AS (
    INSERT INTO collection_generations AS g (collection_id, project_id, published, draft)
      SELECT c.id, c.project_id, count(*) FILTER (WHERE x.published), count(*) FROM gone x JOIN collections c ON c.id = x.collection_id
       GROUP BY c.id, c.project_id
    ON CONFLICT (collection_id) DO UPDATE SET published = g.published + EXCLUDED.published, draft = g.draft + EXCLUDED.draft
  )
  SELECT count(*) INTO n FROM gone;
  RETURN n;
END
$$;

CREATE TRIGGER "content_changes_notify_truncate_x" AFTER TRUNCATE ON "content_changes" FOR EACH STATEMENT EXECUTE FUNCTION "cms_notify_truncate_x"();
