-- Alert channels: email (SMTP), PagerDuty, Microsoft Teams, webhook and Slack destinations beside the per-schedule
-- webhook. A channel's settings are not secret; its secrets (SMTP password, PagerDuty routing key, Teams / Slack /
-- webhook URL) live in the secret store and the channel keeps only their names. Routing: an empty list means "all"
-- (every kind; every schedule when neither schedules nor tags are listed).
CREATE TABLE "alert_channels" (
  "id"           UUID NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  "name"         TEXT NOT NULL,
  "type"         TEXT NOT NULL CONSTRAINT "alert_channels_type_check" CHECK ("type" IN ('email', 'pagerduty', 'teams', 'webhook', 'slack')),
  "settings"     JSONB NOT NULL DEFAULT '{}',
  "secret_refs"  JSONB NOT NULL DEFAULT '{}',
  "kinds"        TEXT[] NOT NULL DEFAULT '{}',
  "schedule_ids" UUID[] NOT NULL DEFAULT '{}',
  "tags"         TEXT[] NOT NULL DEFAULT '{}',
  "enabled"      BOOLEAN NOT NULL DEFAULT true,
  "created_at"   TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
  "created_by"   TEXT NOT NULL,
  "updated_at"   TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
  "updated_by"   TEXT NOT NULL
);
CREATE UNIQUE INDEX "alert_channels_name_key" ON "alert_channels"("name");

-- A delivery to a channel names it; deleting the channel drops its queued deliveries. An alert acknowledged in
-- Vigil queues an "acknowledged" delivery to the PagerDuty channels its opening went to.
ALTER TABLE "alert_deliveries" ADD COLUMN "channel_id" UUID REFERENCES "alert_channels"("id") ON DELETE CASCADE;
CREATE INDEX "alert_deliveries_channel_id_idx" ON "alert_deliveries"("channel_id") WHERE "channel_id" IS NOT NULL;
