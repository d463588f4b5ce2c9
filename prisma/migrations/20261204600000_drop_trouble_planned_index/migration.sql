-- runs_trouble_planned_idx (20261203100000) served the per-schedule trouble series read over a window of runs. Those
-- series are counters kept by deltas since 20261204100000, so nothing reads it any more; and it misled the runs list:
-- for `state = 'failed'` the planner preferred it (planned_at only, state filtered, then an incremental sort) over
-- runs_state_planned_idx (state, planned_at, id), reading ~1,000 heap rows and filtering 50,000 where the right index
-- reads 50: 68–318 ms against 0.8 ms at 10 M runs (the retention bench's (c) "runs list (failed)" went ×5). One fewer
-- index also means one fewer entry written by every run insert and by every update that moves a run into trouble.
DROP INDEX IF EXISTS "runs_trouble_planned_idx";
