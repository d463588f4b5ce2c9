-- Run-after chains: a schedule starts after other schedules' occurrences for the same logical instant. Each link maps
-- the downstream occurrence's planned time to one occurrence of the upstream (same planned time, the latest at or
-- before it, or the latest on the same calendar day in a zone) and needs a condition of its outcome. A downstream
-- occurrence waits as a 'planned' row with wait_reason 'upstream' until the chain sweep (core/runs/chain/) releases,
-- excludes or misses it; after_wait_seconds, counted from its due time, bounds the wait.
CREATE TABLE "schedule_dependencies" (
    "schedule_id" UUID NOT NULL,
    "upstream_id" UUID NOT NULL,
    "condition" TEXT NOT NULL,
    "mapping" TEXT NOT NULL,
    "mapping_timezone" TEXT,
    -- The order the operator listed them in (the form and exports keep it).
    "position" INTEGER NOT NULL,

    CONSTRAINT "schedule_dependencies_pkey" PRIMARY KEY ("schedule_id", "upstream_id"),
    CONSTRAINT "schedule_dependencies_not_self" CHECK ("schedule_id" <> "upstream_id"),
    CONSTRAINT "schedule_dependencies_condition" CHECK ("condition" IN ('succeeded', 'finished', 'failed')),
    CONSTRAINT "schedule_dependencies_mapping" CHECK ("mapping" IN ('same_time', 'latest_before', 'same_day')),
    CONSTRAINT "schedule_dependencies_zone" CHECK (("mapping" = 'same_day') = ("mapping_timezone" IS NOT NULL))
);
-- "Which schedules run after this one": the run page's downstream list, re-run with downstream, delete refusal.
CREATE INDEX "schedule_dependencies_upstream_id_idx" ON "schedule_dependencies" ("upstream_id");
ALTER TABLE "schedule_dependencies" ADD CONSTRAINT "schedule_dependencies_schedule_id_fkey" FOREIGN KEY ("schedule_id") REFERENCES "schedules"("id") ON DELETE CASCADE ON UPDATE CASCADE;
-- Schedules are soft-deleted; a hard delete of an upstream others still follow is refused.
ALTER TABLE "schedule_dependencies" ADD CONSTRAINT "schedule_dependencies_upstream_id_fkey" FOREIGN KEY ("upstream_id") REFERENCES "schedules"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- How long a downstream occurrence waits for its upstream occurrences (from its due time) before it is missed.
ALTER TABLE "schedules" ADD COLUMN "after_wait_seconds" INTEGER NOT NULL DEFAULT 3600;

-- The chain sweep's work list: waiting downstream occurrences, soonest due first.
CREATE INDEX "runs_waiting_upstream_idx" ON "runs" ("due_at") WHERE "state" = 'planned' AND "wait_reason" = 'upstream';

CREATE TRIGGER schedule_dependencies_console_schedules_version AFTER INSERT OR UPDATE OR DELETE ON "schedule_dependencies"
    FOR EACH STATEMENT EXECUTE FUNCTION vigil_bump_console_schedules_version();
