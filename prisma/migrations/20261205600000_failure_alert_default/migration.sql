-- A schedule that keeps failing alerts by default. failure_alert_threshold now reads: NULL = the global default
-- (VIGIL_ALERT_FAILURE_THRESHOLD, 3 unless set), 0 = no failure alerts for this schedule, 1–1000 = its own threshold
-- (core/alerts/condition-alert-rules.ts). Before, NULL meant "never", and the API accepted 1–1000 only.
--
-- The database now refuses what the API refuses. A value outside the range could only have been written around the
-- API (it made the rule fire on a streak of 0 when at most 0); it is brought into the range first.
UPDATE "schedules" SET "failure_alert_threshold" = greatest(0, least(1000, "failure_alert_threshold"))
 WHERE "failure_alert_threshold" < 0 OR "failure_alert_threshold" > 1000;
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_failure_alert_threshold"
    CHECK ("failure_alert_threshold" BETWEEN 0 AND 1000);
