-- Fewer index entries per run (issue 16). Every state change of a run is a non-HOT update (`state` is in the key or
-- the predicate of most indexes on runs), so each claim and each outcome inserts one entry into every index whose
-- predicate the new row meets: 12 for a late start, 7 for a success, before this migration. Indexes that an
-- ordinary start or success needlessly entered are narrowed to the rows their readers ask for:
--
-- runs_state_due_at_idx (state, due_at), over every row: its readers ask for not-started runs by due time (enqueue,
-- due timer, plan lag, misfire sweep, stalled-run reaper, the handler-backlog alert: 'planned', 'queued', 'retrying')
-- and for a day of missed / hollow / zombie runs by due time (the run alert rules); none asks for 'running' or
-- 'succeeded', the two states every run passes through, nor for the other finished states. It becomes two partial
-- indexes that an ordinary start or success never enters: the live not-started runs (few rows), and the three
-- trouble states the alert rules read (one index for both would hold every failed run of the retention period, and
-- the planner then preferred scanning all of it to the handler-backlog alert's two small ranges).
DROP INDEX "runs_state_due_at_idx";
CREATE INDEX "runs_state_due_at_idx" ON "runs"("state", "due_at") WHERE "state" IN ('planned', 'queued', 'retrying');
CREATE INDEX "runs_trouble_due_idx" ON "runs"("state", "due_at") WHERE "state" IN ('missed', 'hollow', 'zombie');

-- runs_running_heartbeat_idx (heartbeat_at) WHERE running: its one reader (the zombie reaper: running runs with a
-- stale heartbeat, oldest first) reads the running runs through runs_running_idx instead — they are as many as the
-- fleet's slots. Without it a heartbeat (heartbeat_at only) changes no indexed column and can be a HOT update.
DROP INDEX "runs_running_heartbeat_idx";

-- runs_group_running_idx (concurrency_group) WHERE running: its readers count one group's running runs
-- (concurrency_group = …), so runs without a group have no business in it.
DROP INDEX "runs_group_running_idx";
CREATE INDEX "runs_group_running_idx" ON "runs"("concurrency_group") WHERE "state" = 'running' AND "concurrency_group" IS NOT NULL;

-- Room on each page for the updated row: a heartbeat can then stay on its page (HOT, no index entry at all), and a
-- claim's or outcome's new row version lands on the page it is already writing. Applies to pages written from now on.
ALTER TABLE "runs" SET (fillfactor = 80);
