-- Handlers come from the workers, not from a list compiled into the console: each worker advertises the
-- handlers it serves when it starts (worker_handlers, alive as long as the worker's heartbeat), and the
-- catalog keeps the last advertised spec of every handler any worker ever served, so a schedule can still be
-- validated (and shown as "no live worker") while its workers are down.
CREATE TABLE "handlers" (
  "name"            TEXT PRIMARY KEY,
  "description"     TEXT NOT NULL DEFAULT '',
  "payload_schema"  JSONB NOT NULL DEFAULT '{}',
  "hash"            TEXT NOT NULL,
  "source"          TEXT NOT NULL,
  "builtin"         BOOLEAN NOT NULL DEFAULT false,
  "first_seen_at"   TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
  "last_seen_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
  "last_worker_id"  TEXT
);

CREATE TABLE "worker_handlers" (
  "worker_id"  TEXT NOT NULL REFERENCES "workers"("id") ON DELETE CASCADE,
  "handler"    TEXT NOT NULL,
  "hash"       TEXT NOT NULL,
  PRIMARY KEY ("worker_id", "handler")
);
CREATE INDEX "worker_handlers_handler_idx" ON "worker_handlers"("handler");

-- A due run whose handler no live worker serves is an alert, per schedule.
ALTER TABLE "alerts" DROP CONSTRAINT "alerts_kind";
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_kind" CHECK ("kind" IN (
  'late', 'completion_deadline', 'missed', 'hollow', 'zombie', 'failures', 'no_worker', 'planner_lag', 'no_handler_worker'));
