-- Alert webhooks that reach people (issue 15): besides Vigil's own JSON, a body chat tools accept (Slack's
-- `text` field). A schedule chooses the format for its own webhook_url; the global URL's format comes from
-- VIGIL_ALERT_WEBHOOK_FORMAT. Each delivery keeps the format it was queued with, so retries send the same body.
ALTER TABLE "schedules" ADD COLUMN "webhook_format" TEXT NOT NULL DEFAULT 'vigil'
  CONSTRAINT "schedules_webhook_format_check" CHECK ("webhook_format" IN ('vigil', 'slack'));
ALTER TABLE "alert_deliveries" ADD COLUMN "format" TEXT NOT NULL DEFAULT 'vigil'
  CONSTRAINT "alert_deliveries_format_check" CHECK ("format" IN ('vigil', 'slack'));
