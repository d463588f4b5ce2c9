-- Reads whose cost must not grow with the history kept (issue 14, done-when (c)). Both indexes are partial so that
-- an ordinary run — planned → queued → running → succeeded within minutes — never enters either: the claim and
-- finish paths only evaluate their predicates.
--
-- 1. The runs list filtered by a state other than the common ones (failed, missed, hollow, timed_out, zombie, …):
--    newest first by planned time within the state, so a page reads one page of index entries
--    (core/runs/read/list-runs.ts plans one statement per state). Without it the list walked the planned-time index
--    back until it had met 50 runs of that state: at 10 M runs, tens of thousands of rows for a rare state.
CREATE INDEX "runs_state_planned_idx" ON "runs"("state", "planned_at", "id")
    WHERE "state" NOT IN ('planned', 'queued', 'running', 'succeeded');

-- 2. The timeline's look-back (core/runs/read/timeline.ts): a run planned before the window shows in it if it
--    finished inside it. Only runs that finished more than 10 minutes after their planned time can (the nearer past
--    is read by planned time), and only those enter this index, so the look-back no longer reads a day of every
--    lane's runs. The difference is taken in UTC wall time (timestamp − timestamp): an index predicate must be
--    immutable, and timestamptz arithmetic with intervals is not.
CREATE INDEX "runs_long_finished_idx" ON "runs"("finished_at")
    WHERE ("finished_at" AT TIME ZONE 'UTC') - ("planned_at" AT TIME ZONE 'UTC') > interval '10 minutes';
