-- Entry revisions: a counter on the entry row that every write of the row moves by one, so that each
-- event of an entry can say which write it shows and a receiver can order an entry's events
-- (webhook deliveries are concurrent, docs/webhooks.md "Ordering"). `updated_at` cannot: writers set
-- it from their transaction's start or from the request, and of two concurrent writes of one row the
-- one that waited for the other's lock commits second with the earlier time. The row lock orders the
-- writes, and the counter is read from the locked row, so it follows commit order per entry.
--
-- Kept by the BEFORE row trigger every entry write already runs (cms_published_updated_at_x), so no
-- writer can forget it and a write costs no second trigger call. Not gapless: a write that sends no
-- event (a field rename rewriting the collection's rows) moves it too.

ALTER TABLE "entries" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 1;

CREATE OR REPLACE FUNCTION "cms_published_updated_at_x"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    NEW.revision := OLD.revision + 1;
  END IF;
  IF NEW.published_version_id IS NULL THEN
    NEW.published_updated_at := NULL;
  ELSIF TG_OP = 'INSERT' OR NEW.published_version_id IS DISTINCT FROM OLD.published_version_id
        OR NEW.published_data IS DISTINCT FROM OLD.published_data THEN
    NEW.published_updated_at := NEW.updated_at;
  END IF;
  RETURN NEW;
END
$$;
