-- Alerts about runs (a late start, a missed firing, a hollow success, a zombie) remember the newest cause
-- they covered: a cause at or before that instant never raises the alert again, even after it resolved,
-- so each bad run is reported once however many workers evaluate and however often.
ALTER TABLE "alerts" ADD COLUMN "last_cause_at" TIMESTAMPTZ(3);
-- How many causes (bad runs) the alert has collected while open.
ALTER TABLE "alerts" ADD COLUMN "occurrences" INTEGER NOT NULL DEFAULT 1;
-- Why it resolved, in words an operator can read ("a later run started 12 ms late").
ALTER TABLE "alerts" ADD COLUMN "resolution" TEXT;

CREATE INDEX "alerts_dedupe_key_last_cause_at_idx" ON "alerts"("dedupe_key", "last_cause_at" DESC);
CREATE INDEX "alerts_schedule_id_opened_at_idx" ON "alerts"("schedule_id", "opened_at" DESC);
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_kind" CHECK ("kind" IN (
  'late', 'completion_deadline', 'missed', 'hollow', 'zombie', 'failures', 'no_worker', 'planner_lag'));
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_severity" CHECK ("severity" IN ('warning', 'critical'));

-- The evaluator looks for zombie detections every few seconds; without this it would scan the whole trace table.
CREATE INDEX "run_events_zombie_detected_at_idx" ON "run_events"("at") WHERE "type" = 'zombie_detected';

-- Webhook deliveries are claimed by due time among pending ones only.
CREATE INDEX "alert_deliveries_pending_idx" ON "alert_deliveries"("next_attempt_at") WHERE "state" = 'pending';
CREATE INDEX "alert_deliveries_alert_id_idx" ON "alert_deliveries"("alert_id");
