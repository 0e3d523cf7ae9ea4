-- Webhook delivery pipeline: pings have no outbox row, admin-initiated sends are flagged, and the
-- retention cleanup deletes by time.

-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "manual" BOOLEAN NOT NULL DEFAULT false,
ALTER COLUMN "outbox_id" DROP NOT NULL;

-- CreateIndex
CREATE INDEX "webhook_deliveries_completed_at_idx" ON "webhook_deliveries"("completed_at");

-- CreateIndex
CREATE INDEX "webhook_logs_created_at_idx" ON "webhook_logs"("created_at");

-- The dispatcher only ever reads undispatched rows; a partial index keeps that lookup tiny however
-- many dispatched rows wait for cleanup.
CREATE INDEX "outbox_events_pending_x" ON "outbox_events"("id") WHERE "dispatched_at" IS NULL;
