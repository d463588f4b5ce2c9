-- Planning at scale (issue 16): the planner takes live schedules least advanced first, in slices, and planner lag
-- reads the least advanced cursor. A schedule never planned (planned_through NULL) starts at its creation instant.
-- An index on that cursor makes both a short range read instead of a sort of every schedule on each tick.
CREATE INDEX "schedules_plan_cursor_idx" ON "schedules" ((coalesce("planned_through", "created_at")), "id") WHERE "deleted_at" IS NULL;

-- Each tick the planner looks for pauses whose `until` has come (auto-resume) and for paused schedules with fires to
-- record (the misfire sweep): only paused schedules are in this index, instead of a scan of every schedule.
CREATE INDEX "schedules_paused_until_idx" ON "schedules" ("paused_until") WHERE "paused_at" IS NOT NULL;
