-- Cheaper search vectors (docs/filtering.md, "Search"): the same vectors, computed without running a
-- query per entry row.
--
-- The trigger derives the vectors of every row written (a bulk create of 50 published entries derives
-- 50), and cms_search_vector_x did it with a query (recordset of the spec × path values, aggregated
-- per weight) whose executor was set up and torn down for each row, plus a call of the SQL function
-- cms_search_config_x, which PostgreSQL could not inline: the `::regconfig` cast of its text result
-- resolves a name at run time, which is not immutable. Now the configuration is a constant per branch
-- (inlined, and folded when the locale is a constant, as in a search's query), and the vector is built
-- from plain expressions (a loop over the spec and over each path's values). Values are joined in the
-- same order as before, so every stored vector stays exactly what it was and nothing is re-derived.

CREATE OR REPLACE FUNCTION "cms_search_config_x"(locale text) RETURNS regconfig LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE split_part(split_part(lower(locale), '-', 1), '_', 1)
    WHEN 'ar' THEN 'pg_catalog.arabic'::regconfig WHEN 'hy' THEN 'pg_catalog.armenian'::regconfig WHEN 'eu' THEN 'pg_catalog.basque'::regconfig
    WHEN 'ca' THEN 'pg_catalog.catalan'::regconfig WHEN 'da' THEN 'pg_catalog.danish'::regconfig WHEN 'nl' THEN 'pg_catalog.dutch'::regconfig
    WHEN 'en' THEN 'pg_catalog.english'::regconfig WHEN 'fi' THEN 'pg_catalog.finnish'::regconfig WHEN 'fr' THEN 'pg_catalog.french'::regconfig
    WHEN 'de' THEN 'pg_catalog.german'::regconfig WHEN 'el' THEN 'pg_catalog.greek'::regconfig WHEN 'hi' THEN 'pg_catalog.hindi'::regconfig
    WHEN 'hu' THEN 'pg_catalog.hungarian'::regconfig WHEN 'id' THEN 'pg_catalog.indonesian'::regconfig WHEN 'ga' THEN 'pg_catalog.irish'::regconfig
    WHEN 'it' THEN 'pg_catalog.italian'::regconfig WHEN 'lt' THEN 'pg_catalog.lithuanian'::regconfig WHEN 'ne' THEN 'pg_catalog.nepali'::regconfig
    WHEN 'no' THEN 'pg_catalog.norwegian'::regconfig WHEN 'nb' THEN 'pg_catalog.norwegian'::regconfig WHEN 'nn' THEN 'pg_catalog.norwegian'::regconfig
    WHEN 'pt' THEN 'pg_catalog.portuguese'::regconfig WHEN 'ro' THEN 'pg_catalog.romanian'::regconfig WHEN 'ru' THEN 'pg_catalog.russian'::regconfig
    WHEN 'sr' THEN 'pg_catalog.serbian'::regconfig WHEN 'es' THEN 'pg_catalog.spanish'::regconfig WHEN 'sv' THEN 'pg_catalog.swedish'::regconfig
    WHEN 'ta' THEN 'pg_catalog.tamil'::regconfig WHEN 'tr' THEN 'pg_catalog.turkish'::regconfig WHEN 'yi' THEN 'pg_catalog.yiddish'::regconfig
    ELSE 'pg_catalog.simple'::regconfig END
$$;

-- Each searchable field's string values, in spec order and then in the order its path yields them,
-- joined with a space per weight: what the aggregate over the recordset joined.
CREATE OR REPLACE FUNCTION "cms_search_vector_x"(spec jsonb, locale text, doc jsonb) RETURNS tsvector LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  cfg regconfig;
  a text; b text; d text;
  item jsonb; vals jsonb; t text;
BEGIN
  IF doc IS NULL THEN RETURN NULL; END IF;
  IF jsonb_typeof(doc) <> 'object' OR spec IS NULL OR spec = '[]'::jsonb THEN RETURN ''::tsvector; END IF;
  cfg := cms_search_config_x(locale);
  FOR i IN 0 .. jsonb_array_length(spec) - 1 LOOP
    item := spec -> i;
    vals := jsonb_path_query_array(doc, (item ->> 'p')::jsonpath);
    FOR j IN 0 .. jsonb_array_length(vals) - 1 LOOP
      CONTINUE WHEN jsonb_typeof(vals -> j) <> 'string';
      t := vals ->> j;
      IF (item ->> 'm')::boolean THEN
        t := regexp_replace(regexp_replace(t, '!?\[([^]]*)\]\([^)]*\)', '\1', 'g'), '<[^>]*>|[`*_#>~|]', ' ', 'g');
      END IF;
      CASE item ->> 'w'
        WHEN 'A' THEN a := CASE WHEN a IS NULL THEN t ELSE a || ' ' || t END;
        WHEN 'B' THEN b := CASE WHEN b IS NULL THEN t ELSE b || ' ' || t END;
        WHEN 'D' THEN d := CASE WHEN d IS NULL THEN t ELSE d || ' ' || t END;
        ELSE NULL;
      END CASE;
    END LOOP;
  END LOOP;
  RETURN setweight(to_tsvector(cfg, coalesce(a, '')), 'A') || setweight(to_tsvector(cfg, coalesce(b, '')), 'B')
      || setweight(to_tsvector(cfg, coalesce(d, '')), 'D');
END
$$;
