-- Maintenance mode (issue 15): one operator action pauses every schedule, or every schedule with a tag, with one
-- reason and an optional until. The window is a row; each schedule it paused points at it, so "resume" resumes
-- exactly those (not schedules an operator had paused for reasons of their own) and the console's banner can say
-- what is in maintenance. At most one open window per scope (all, or one tag).
CREATE TABLE "maintenance_windows" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tag" TEXT,
    "reason" TEXT NOT NULL,
    "until" TIMESTAMPTZ(3),
    "started_by" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    "ended_at" TIMESTAMPTZ(3),
    "ended_by" TEXT,

    CONSTRAINT "maintenance_windows_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "maintenance_windows_open_scope_key" ON "maintenance_windows" ((coalesce("tag", ''))) WHERE "ended_at" IS NULL;

ALTER TABLE "schedules" ADD COLUMN "maintenance_id" UUID;
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_maintenance_id_fkey" FOREIGN KEY ("maintenance_id") REFERENCES "maintenance_windows"("id") ON DELETE SET NULL ON UPDATE CASCADE;
CREATE INDEX "schedules_maintenance_id_idx" ON "schedules" ("maintenance_id") WHERE "maintenance_id" IS NOT NULL;

-- Schedules as code: a schedule created or changed by applying a schedules file is "managed" by that file (its
-- name as the applier gave it); the console's editor warns that the next apply will overwrite a hand edit.
ALTER TABLE "schedules" ADD COLUMN "managed_by" TEXT;
ALTER TABLE "schedules" ADD COLUMN "managed_at" TIMESTAMPTZ(3);
