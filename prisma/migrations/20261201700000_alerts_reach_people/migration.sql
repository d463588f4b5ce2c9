-- Alert webhooks that reach people (issue 15): besides Vigil's own JSON, a body chat tools accept (Slack's
-- `text` field). A schedule chooses the format for its own webhook_url; the global URL's format comes from
-- VIGIL_ALERT_WEBHOOK_FORMAT. Each delivery keeps the format it was queued with, so retries send the same body.
ALTER TABLE "schedules" ADD COLUMN "webhook_format" TEXT NOT NULL DEFAULT 'vigil'
  CONSTRAINT "schedules_webhook_format_check" CHECK ("webhook_format" IN ('vigil', 'slack'));
ALTER TABLE "alert_deliveries" ADD COLUMN "format" TEXT NOT NULL DEFAULT 'vigil'
  CONSTRAINT "alert_deliveries_format_check" CHECK ("format" IN ('vigil', 'slack'));

-- Silencing: an operator mutes one alert kind of one schedule for a while (with a reason, audited). The alert
-- is still raised and shown; only its webhook deliveries are not queued while a silence is active
-- (until > now and not ended early).
CREATE TABLE "alert_silences" (
  "id"          UUID NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  "schedule_id" UUID NOT NULL REFERENCES "schedules"("id") ON DELETE CASCADE,
  "kind"        TEXT NOT NULL,
  "until"       TIMESTAMPTZ(3) NOT NULL,
  "reason"      TEXT NOT NULL,
  "created_by"  TEXT NOT NULL,
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
  "ended_at"    TIMESTAMPTZ(3),
  "ended_by"    TEXT
);
CREATE INDEX "alert_silences_schedule_id_kind_until_idx" ON "alert_silences"("schedule_id", "kind", "until");
