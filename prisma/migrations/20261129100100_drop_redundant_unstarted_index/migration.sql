-- runs_state_due_at_idx (state, due_at) already answers "not-started runs due by now" (state IN ('planned',
-- 'queued') AND due_at <= …); the partial copy only cost every insert (a backfill writes thousands at once).
DROP INDEX IF EXISTS "runs_unstarted_due_idx";
