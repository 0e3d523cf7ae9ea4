-- Tokens scoped to collections and fields, with an expiry; preview tokens are the same rows with
-- kind 'preview' (read-only, optionally tied to a release). NULL scope columns mean "no limit", so
-- every existing token keeps exactly the reach it had.
--   collections: the slugs the token may act on (NULL: all of the project's)
--   fields:      { "<slug>": ["field", ...] } the only fields it may read and write there (NULL: all)
--   release_id:  a preview token's release; no foreign key yet (the releases table may not exist)
-- The scope columns never change after creation, so the change-notification trigger needs no new
-- column list: revocation (revoked_at) and deletion already notify every server.
ALTER TABLE "api_tokens" ADD COLUMN IF NOT EXISTS "kind" VARCHAR(16) NOT NULL DEFAULT 'api';
ALTER TABLE "api_tokens" ADD COLUMN IF NOT EXISTS "collections" TEXT[];
ALTER TABLE "api_tokens" ADD COLUMN IF NOT EXISTS "fields" JSONB;
ALTER TABLE "api_tokens" ADD COLUMN IF NOT EXISTS "expires_at" TIMESTAMPTZ(3);
ALTER TABLE "api_tokens" ADD COLUMN IF NOT EXISTS "release_id" UUID;
