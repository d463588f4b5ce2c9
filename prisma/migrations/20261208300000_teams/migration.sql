-- Teams (namespaces): every schedule, calendar, secret, alert channel and concurrency group belongs to one team, and a
-- user holds a role per team. What exists before this migration moves, in place, into the team "default": every object
-- keeps its id, name and history; every user who is not an admin becomes a member of "default" with the role they had.

CREATE TABLE "teams" (
  "id"               UUID NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  "name"             TEXT NOT NULL CONSTRAINT "teams_name_format" CHECK ("name" ~ '^[a-z][a-z0-9-]{0,62}$'),
  "description"      TEXT NOT NULL DEFAULT '',
  -- Whether the team's schedules may run programs on a worker host at all (the per-user grant still applies), and
  -- which command lines (argv patterns) they may run; empty = any command the permission allows.
  "code_execution"   BOOLEAN NOT NULL DEFAULT false,
  "command_allow_list" JSONB NOT NULL DEFAULT '[]',
  -- When set, the team's runs go only to workers started for this pool.
  "worker_pool"      TEXT,
  "created_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
  "created_by"       TEXT NOT NULL DEFAULT 'system',
  CONSTRAINT "teams_name_key" UNIQUE ("name")
);

-- The default team has a fixed id so the column defaults below (and code written before teams) name it.
INSERT INTO "teams" ("id", "name", "description", "code_execution")
VALUES ('00000000-0000-4000-8000-000000000001', 'default', 'Everything that existed before teams.', true);

CREATE TABLE "team_members" (
  "team_id"    UUID NOT NULL REFERENCES "teams"("id") ON DELETE CASCADE,
  "user_id"    UUID NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
  -- viewer < operator < admin of the team; an auditor reads the team's audit trail (and nothing else).
  "role"       TEXT NOT NULL CONSTRAINT "team_members_role_check" CHECK ("role" IN ('viewer', 'operator', 'admin', 'auditor')),
  -- "sso" rows are rewritten at each single sign-on from the provider's claims; "manual" ones an admin set.
  "source"     TEXT NOT NULL DEFAULT 'manual' CONSTRAINT "team_members_source_check" CHECK ("source" IN ('manual', 'sso')),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY ("team_id", "user_id")
);
CREATE INDEX "team_members_user_idx" ON "team_members" ("user_id");

INSERT INTO "team_members" ("team_id", "user_id", "role")
SELECT '00000000-0000-4000-8000-000000000001', "id", "role" FROM "users" WHERE "role" IN ('viewer', 'operator');

-- The owning team of each object. Existing rows take the default team.
ALTER TABLE "schedules" ADD COLUMN "team_id" UUID NOT NULL DEFAULT '00000000-0000-4000-8000-000000000001' REFERENCES "teams"("id");
ALTER TABLE "calendars" ADD COLUMN "team_id" UUID NOT NULL DEFAULT '00000000-0000-4000-8000-000000000001' REFERENCES "teams"("id");
ALTER TABLE "secrets" ADD COLUMN "team_id" UUID NOT NULL DEFAULT '00000000-0000-4000-8000-000000000001' REFERENCES "teams"("id");
ALTER TABLE "alert_channels" ADD COLUMN "team_id" UUID NOT NULL DEFAULT '00000000-0000-4000-8000-000000000001' REFERENCES "teams"("id");
ALTER TABLE "concurrency_groups" ADD COLUMN "team_id" UUID NOT NULL DEFAULT '00000000-0000-4000-8000-000000000001' REFERENCES "teams"("id");
CREATE INDEX "schedules_team_idx" ON "schedules" ("team_id");
CREATE INDEX "calendars_team_idx" ON "calendars" ("team_id");
CREATE INDEX "secrets_team_idx" ON "secrets" ("team_id");
CREATE INDEX "alert_channels_team_idx" ON "alert_channels" ("team_id");
CREATE INDEX "concurrency_groups_team_idx" ON "concurrency_groups" ("team_id");

-- An API token acts for one team (NULL: every team its creator may act in, as before) and only for its scopes
-- (empty: everything its role allows, as before).
ALTER TABLE "api_tokens" ADD COLUMN "team_id" UUID REFERENCES "teams"("id") ON DELETE CASCADE;
ALTER TABLE "api_tokens" ADD COLUMN "scopes" TEXT[] NOT NULL DEFAULT '{}';
