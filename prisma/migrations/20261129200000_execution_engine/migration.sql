-- Execution engine.
-- wakes: a run that waited for a slot (overlap or concurrency group) gets a fresh pg-boss job when a
-- slot frees. Job ids are derived from (run, attempt, wake), so each wake needs its own number; the
-- counter also tells the reaper which job should currently exist for a queued run.
ALTER TABLE "runs" ADD COLUMN "wakes" INTEGER NOT NULL DEFAULT 0;

-- Runs waiting for a slot, oldest first, per concurrency group (woken by whoever frees a slot).
CREATE INDEX "runs_waiting_group_idx" ON "runs"("concurrency_group", "due_at")
  WHERE "state" = 'queued' AND "wait_reason" IS NOT NULL;

-- The reaper's question "which running runs stopped heartbeating" reads running rows only.
CREATE INDEX "runs_running_heartbeat_idx" ON "runs"("heartbeat_at") WHERE "state" = 'running';

-- Retries due: the reaper re-sends a retry whose job is gone.
CREATE INDEX "runs_retrying_next_idx" ON "runs"("next_attempt_at") WHERE "state" = 'retrying';
