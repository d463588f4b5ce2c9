-- Re-planning (a trigger edit) cancels the not-yet-started future occurrences the new trigger no longer
-- fires. Such a row is marked superseded by prefixing its idempotency key with 'superseded:' (no handler
-- ever saw the key: it never started), and stops holding its (schedule, planned_at) slot, so a later edit
-- that fires at that instant again gets a fresh occurrence instead of a silent gap. A cancel by an operator
-- keeps its key and keeps the slot: the planner never re-creates what an operator cancelled.
DROP INDEX "runs_schedule_planned_key";
CREATE UNIQUE INDEX "runs_schedule_planned_key" ON "runs"("schedule_id", "planned_at")
  WHERE "kind" = 'scheduled' AND "idempotency_key" NOT LIKE 'superseded:%';

-- The planner's per-tick questions ("which runs are due to be enqueued", "which are overdue") read
-- not-started rows only; this keeps them off the ever-growing tail of finished runs.
CREATE INDEX "runs_unstarted_due_idx" ON "runs"("due_at") WHERE "state" IN ('planned', 'queued');

-- Runs waiting their turn to be enqueued one at a time per schedule (catch-up after a misfire, backfill).
CREATE INDEX "runs_drain_idx" ON "runs"("schedule_id", "planned_at") WHERE "state" = 'planned' AND "wait_reason" IS NOT NULL;
