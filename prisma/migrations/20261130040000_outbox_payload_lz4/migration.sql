-- Outbox payloads (the entry resource and the committed row, 2-4 KB of JSON per event) are over the
-- TOAST threshold, so each is compressed as it is inserted: with pglz, the default, that was a
-- measurable share of the database's CPU in a bulk create (100 events per batch of 50 published
-- entries). lz4 compresses about as small at a fraction of the CPU. Only new rows are affected.
-- A server built without lz4 (some embedded builds) keeps pglz.
DO $$
BEGIN
  ALTER TABLE "outbox_events" ALTER COLUMN "payload" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
  NULL;
END
$$;
