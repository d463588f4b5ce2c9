-- The runs in flight that a metrics scrape counts (issue 17; core/metrics/read-fleet-runs.ts): runs_unfinished_planned_idx
-- (20261203100000) carries what the scrape reads of them, so counting them is an index-only range scan instead of a
-- heap page per run. At 1,000 schedules a minute's fires queued at once (or each paused schedule's held fire) are
-- ~1,000-3,000 such runs: 18 ms of heap reads a scrape at load 11, 1.5 ms from the index. Same key and predicate as
-- before, so the same runs enter it, at the same moments (an insert as planned, the claim's planned → queued →
-- running); its entries are wider (the columns below).
DROP INDEX "runs_unfinished_planned_idx";
CREATE INDEX "runs_unfinished_planned_idx" ON "runs"("planned_at")
    INCLUDE ("state", "attempt", "kind", "reruns", "lateness_ms", "finished_at", "duration_ms")
    WHERE "state" IN ('planned', 'queued', 'running', 'retrying');
