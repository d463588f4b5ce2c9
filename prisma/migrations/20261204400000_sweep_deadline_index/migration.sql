-- The planner's misfire sweep (core/runs/plan/mark-missed-runs.ts findSchedulesToSweep) reads only the unstarted runs
-- due before now minus the smallest starting deadline of any live schedule, instead of every due unstarted run; the
-- smallest deadline is the first entry of this index instead of a scan of every schedule on each tick.
CREATE INDEX "schedules_starting_deadline_idx" ON "schedules" ("starting_deadline_seconds") WHERE "deleted_at" IS NULL;
