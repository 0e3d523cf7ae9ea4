-- Full-text search (docs/filtering.md, "Search"). Each entry carries a tsvector per view: `search_draft`
-- from `data`, `search_published` from `published_data`, built from the collection's searchable fields
-- with the text search configuration of the entry's locale. Triggers keep them, so every writer of
-- entries (the version statements, imports, field renames, bulk writes) keeps them in step without
-- knowing: a writer cannot forget what it never does.
--
-- Which fields are searched is `collections.search_fields`, derived from the fields table by
-- cms_search_spec_x and kept by a trigger on `fields`: when a field stops being searched (deleted,
-- hidden, `searchable: false`, renamed), every entry of the collection is re-derived in the same
-- transaction, as when one starts being searched (un-hidden, `searchable: true`); a field that only
-- joins by being created (a new field has no values yet) re-derives nothing.

ALTER TABLE "entries" ADD COLUMN "search_draft" tsvector, ADD COLUMN "search_published" tsvector;
ALTER TABLE "collections" ADD COLUMN "search_fields" JSONB NOT NULL DEFAULT '[]';

-- The language of a locale (`fr`, `fr-ca`, `pt_BR`) as a configuration PostgreSQL and PGlite both
-- ship; `simple` (no stemming, no stop words) for the others.
CREATE FUNCTION "cms_search_config_x"(locale text) RETURNS regconfig LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (CASE split_part(split_part(lower(locale), '-', 1), '_', 1)
    WHEN 'ar' THEN 'pg_catalog.arabic' WHEN 'hy' THEN 'pg_catalog.armenian' WHEN 'eu' THEN 'pg_catalog.basque'
    WHEN 'ca' THEN 'pg_catalog.catalan' WHEN 'da' THEN 'pg_catalog.danish' WHEN 'nl' THEN 'pg_catalog.dutch'
    WHEN 'en' THEN 'pg_catalog.english' WHEN 'fi' THEN 'pg_catalog.finnish' WHEN 'fr' THEN 'pg_catalog.french'
    WHEN 'de' THEN 'pg_catalog.german' WHEN 'el' THEN 'pg_catalog.greek' WHEN 'hi' THEN 'pg_catalog.hindi'
    WHEN 'hu' THEN 'pg_catalog.hungarian' WHEN 'id' THEN 'pg_catalog.indonesian' WHEN 'ga' THEN 'pg_catalog.irish'
    WHEN 'it' THEN 'pg_catalog.italian' WHEN 'lt' THEN 'pg_catalog.lithuanian' WHEN 'ne' THEN 'pg_catalog.nepali'
    WHEN 'no' THEN 'pg_catalog.norwegian' WHEN 'nb' THEN 'pg_catalog.norwegian' WHEN 'nn' THEN 'pg_catalog.norwegian'
    WHEN 'pt' THEN 'pg_catalog.portuguese' WHEN 'ro' THEN 'pg_catalog.romanian' WHEN 'ru' THEN 'pg_catalog.russian'
    WHEN 'sr' THEN 'pg_catalog.serbian' WHEN 'es' THEN 'pg_catalog.spanish' WHEN 'sv' THEN 'pg_catalog.swedish'
    WHEN 'ta' THEN 'pg_catalog.tamil' WHEN 'tr' THEN 'pg_catalog.turkish' WHEN 'yi' THEN 'pg_catalog.yiddish'
    ELSE 'pg_catalog.simple' END)::regconfig
$$;

-- The searchable fields of a collection, as [{ p: JSON path, w: weight, m: markdown }] in field id
-- order: live text, longtext, richtext, slug and email fields, top-level or in a live group, that are
-- neither hidden (nor in a hidden group) nor `searchable: false`. Passwords are never text-like. The
-- lax path reads a single value, a repeatable field's list and a repeatable group's items alike.
-- Short fields weigh A (title-like), slugs and emails B, long text and rich text D, so a match in a
-- title ranks above the same match in a body.
CREATE FUNCTION "cms_search_spec_x"(cid integer) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT coalesce(jsonb_agg(jsonb_build_object(
      'p', CASE WHEN g.id IS NULL THEN format('lax $.%s[*]', to_json(f.name::text))
                ELSE format('lax $.%s.%s[*]', to_json(g.name::text), to_json(f.name::text)) END,
      'w', CASE f.type WHEN 'text' THEN 'A' WHEN 'slug' THEN 'B' WHEN 'email' THEN 'B' ELSE 'D' END,
      'm', f.type = 'richtext') ORDER BY f.id), '[]'::jsonb)
  FROM "fields" f LEFT JOIN "fields" g ON g.id = f.parent_field_id
  WHERE f.collection_id = cid AND f.deleted_at IS NULL
    AND f.type IN ('text', 'longtext', 'richtext', 'slug', 'email')
    AND coalesce(f.options ->> 'hiddenInAPI', 'false') <> 'true'
    AND coalesce(f.options ->> 'searchable', 'true') <> 'false'
    AND (f.parent_field_id IS NULL
         OR (g.deleted_at IS NULL AND g.type = 'group' AND coalesce(g.options ->> 'hiddenInAPI', 'false') <> 'true'))
$$;

-- The vector of one stored copy (`data` or `published_data`): null for no copy, empty when nothing is
-- searchable. Rich text is markdown: link and image targets and HTML tags are dropped, their text kept.
CREATE FUNCTION "cms_search_vector_x"(spec jsonb, locale text, doc jsonb) RETURNS tsvector LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  cfg regconfig;
  a text; b text; d text;
BEGIN
  IF doc IS NULL THEN RETURN NULL; END IF;
  IF jsonb_typeof(doc) <> 'object' OR spec IS NULL OR spec = '[]'::jsonb THEN RETURN ''::tsvector; END IF;
  cfg := cms_search_config_x(locale);
  SELECT string_agg(t, ' ') FILTER (WHERE w = 'A'), string_agg(t, ' ') FILTER (WHERE w = 'B'), string_agg(t, ' ') FILTER (WHERE w = 'D')
    INTO a, b, d
    FROM (SELECT s.w, CASE WHEN s.m
                   THEN regexp_replace(regexp_replace(v #>> '{}', '!?\[([^]]*)\]\([^)]*\)', '\1', 'g'), '<[^>]*>|[`*_#>~|]', ' ', 'g')
                   ELSE v #>> '{}' END AS t
            FROM jsonb_to_recordset(spec) AS s(p text, w text, m boolean),
                 jsonb_path_query(doc, s.p::jsonpath) AS v
           WHERE jsonb_typeof(v) = 'string') x;
  RETURN setweight(to_tsvector(cfg, coalesce(a, '')), 'A') || setweight(to_tsvector(cfg, coalesce(b, '')), 'B')
      || setweight(to_tsvector(cfg, coalesce(d, '')), 'D');
END
$$;

UPDATE "collections" SET "search_fields" = cms_search_spec_x(id);
UPDATE "entries" e SET "search_draft" = cms_search_vector_x(c.search_fields, e.locale, e.data),
                       "search_published" = cms_search_vector_x(c.search_fields, e.locale, e.published_data)
  FROM "collections" c WHERE c.id = e.collection_id;

-- Per row, before the write: only the copies that changed are re-derived (a publish usually copies
-- the draft, whose vector is then reused).
CREATE FUNCTION "cms_entry_search_x"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE spec jsonb;
BEGIN
  SELECT c.search_fields INTO spec FROM collections c WHERE c.id = NEW.collection_id;
  IF TG_OP = 'INSERT' OR NEW.data IS DISTINCT FROM OLD.data OR NEW.locale IS DISTINCT FROM OLD.locale
     OR NEW.collection_id IS DISTINCT FROM OLD.collection_id THEN
    NEW.search_draft := cms_search_vector_x(spec, NEW.locale, NEW.data);
  END IF;
  IF TG_OP = 'INSERT' OR NEW.published_data IS DISTINCT FROM OLD.published_data OR NEW.locale IS DISTINCT FROM OLD.locale
     OR NEW.collection_id IS DISTINCT FROM OLD.collection_id THEN
    IF NEW.published_data IS NOT DISTINCT FROM NEW.data THEN
      NEW.search_published := NEW.search_draft;
    ELSE
      NEW.search_published := cms_search_vector_x(spec, NEW.locale, NEW.published_data);
    END IF;
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER "entries_search_x" BEFORE INSERT OR UPDATE OF "data", "published_data", "locale", "collection_id" ON "entries"
  FOR EACH ROW EXECUTE FUNCTION "cms_entry_search_x"();

-- A collection's searchable fields after a change of its fields: stored and, unless fields were only
-- created (`created`: nothing stored under them yet), every entry of the collection re-derived: one
-- UPDATE of the collection's rows in the schema change's transaction (docs/filtering.md gives the cost).
CREATE FUNCTION "cms_search_resync_x"(cid integer, created boolean) RETURNS void LANGUAGE plpgsql AS $$
DECLARE before jsonb; after jsonb;
BEGIN
  SELECT search_fields INTO before FROM collections WHERE id = cid FOR UPDATE;
  IF NOT FOUND THEN RETURN; END IF;
  after := cms_search_spec_x(cid);
  IF before = after THEN RETURN; END IF;
  UPDATE collections SET search_fields = after WHERE id = cid;
  IF NOT created OR NOT (after @> before) THEN
    UPDATE entries SET search_draft = cms_search_vector_x(after, locale, data),
                       search_published = cms_search_vector_x(after, locale, published_data)
     WHERE collection_id = cid;
  END IF;
END
$$;

CREATE FUNCTION "cms_fields_search_x"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE cid integer;
BEGIN
  FOR cid IN SELECT DISTINCT collection_id FROM changed LOOP
    PERFORM cms_search_resync_x(cid, TG_OP = 'INSERT');
  END LOOP;
  RETURN NULL;
END
$$;

CREATE TRIGGER "fields_search_insert_x" AFTER INSERT ON "fields" REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION "cms_fields_search_x"();
CREATE TRIGGER "fields_search_update_x" AFTER UPDATE ON "fields" REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION "cms_fields_search_x"();
CREATE TRIGGER "fields_search_delete_x" AFTER DELETE ON "fields" REFERENCING OLD TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION "cms_fields_search_x"();

-- GIN indexes per collection and view, partial on the rows a list of that view reads (as the per-field
-- indexes of src/collections/field-indexes.ts). The application builds them CONCURRENTLY when a
-- collection gains searchable fields; collections that have some now get them here.
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT id FROM collections WHERE search_fields <> '[]'::jsonb LOOP
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON entries USING gin (search_draft) WHERE collection_id = %s AND deleted_at IS NULL',
                   'entries_c' || r.id || '_search_d_x', r.id);
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON entries USING gin (search_published) WHERE collection_id = %s AND deleted_at IS NULL'
                   ' AND state = ''published'' AND published_version_id IS NOT NULL', 'entries_c' || r.id || '_search_p_x', r.id);
  END LOOP;
END
$$;
