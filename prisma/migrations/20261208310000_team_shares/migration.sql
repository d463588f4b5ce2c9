-- A team shares one of its objects with another team (or with every team): a schedule of that team may then refer to
-- it (a secret by name, a calendar, a concurrency group by name), and a shared calendar is visible to it read-only.
-- Only the owner team's admin (or the global admin) writes these rows, each one audited (core/teams/team-shares.ts).
CREATE TABLE "team_shares" (
  "id"            UUID NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  "owner_team_id" UUID NOT NULL REFERENCES "teams"("id") ON DELETE CASCADE,
  "kind"          TEXT NOT NULL CONSTRAINT "team_shares_kind_check" CHECK ("kind" IN ('secret', 'calendar', 'concurrency_group')),
  -- The object as schedules refer to it: a secret's name, a calendar's id, a concurrency group's name.
  "object_key"    TEXT NOT NULL,
  -- NULL: shared with every team.
  "shared_with_team_id" UUID REFERENCES "teams"("id") ON DELETE CASCADE,
  "created_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
  "created_by"    TEXT NOT NULL,
  CONSTRAINT "team_shares_once" UNIQUE NULLS NOT DISTINCT ("owner_team_id", "kind", "object_key", "shared_with_team_id")
);
CREATE INDEX "team_shares_object_idx" ON "team_shares" ("kind", "object_key");
