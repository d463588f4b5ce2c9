-- Operator power tools (issue 15).
-- Trigger now honours an Idempotency-Key request header: the client's key is kept per schedule with a hash
-- of the request it came with, so a retried POST returns the run the first one created instead of a second
-- run, and the same key with a different body is refused. No foreign key to runs: finished runs expire by
-- retention, and a remembered key outlives them harmlessly.
CREATE TABLE "trigger_requests" (
  "schedule_id"   UUID NOT NULL REFERENCES "schedules"("id") ON DELETE CASCADE,
  "client_key"    TEXT NOT NULL,
  "request_hash"  TEXT NOT NULL,
  "run_id"        UUID NOT NULL,
  "created_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY ("schedule_id", "client_key")
);

-- Re-run: a new attempt of the same occurrence (same idempotency key). `reruns` counts how often an operator
-- re-ran it; lateness and completion rules leave re-run occurrences out like backfills (an operator chose
-- when the re-run started, the scheduler did not).
ALTER TABLE "runs" ADD COLUMN "reruns" INTEGER NOT NULL DEFAULT 0;
