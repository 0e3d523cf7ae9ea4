-- Scheduled publishes and unpublishes, of one entry or of a release (src/schedules/). This table is
-- the record; BullMQ only holds the delayed job that wakes a worker at run_at, and every row still
-- `scheduled` is put back on the queue from here at worker start and periodically, so losing Redis
-- loses no schedule. New table only: safe on a database with data.

-- CreateTable
CREATE TABLE IF NOT EXISTS "scheduled_actions" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "kind" VARCHAR(16) NOT NULL,
    "collection_id" INTEGER,
    "entry_uuid" UUID,
    "locale" VARCHAR(35),
    "release_id" UUID,
    "action" VARCHAR(16) NOT NULL,
    "run_at" TIMESTAMPTZ(3) NOT NULL,
    "status" VARCHAR(16) NOT NULL DEFAULT 'scheduled',
    "errors" JSONB,
    "source" VARCHAR(8) NOT NULL DEFAULT 'api',
    "created_by_token_id" INTEGER,
    "lease_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ran_at" TIMESTAMPTZ(3),

    CONSTRAINT "scheduled_actions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX IF NOT EXISTS "scheduled_actions_project_id_entry_uuid_idx" ON "scheduled_actions"("project_id", "entry_uuid");

-- CreateIndex
CREATE INDEX IF NOT EXISTS "scheduled_actions_project_id_release_id_idx" ON "scheduled_actions"("project_id", "release_id");

-- AddForeignKey
DO $$ BEGIN
  ALTER TABLE "scheduled_actions" ADD CONSTRAINT "scheduled_actions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;

-- The sweeper and the embedded runner read only pending rows by time; a partial index keeps that
-- lookup small however many finished rows accumulate.
CREATE INDEX IF NOT EXISTS "scheduled_actions_due_x" ON "scheduled_actions"("run_at") WHERE "status" IN ('scheduled', 'running');
