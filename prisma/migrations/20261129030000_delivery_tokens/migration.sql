-- Delivery tokens: read only the published view, and their answers may be kept by a CDN (docs/auth.md,
-- "Delivery tokens"). False for every existing token, so nothing they get changes. Like the scope
-- columns, it never changes after creation, so the change-notification trigger needs no new column.
ALTER TABLE "api_tokens" ADD COLUMN IF NOT EXISTS "delivery" BOOLEAN NOT NULL DEFAULT false;
