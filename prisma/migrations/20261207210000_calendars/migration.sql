-- Business calendars: named, shared sets of blocked times (dates, weekdays, recurring windows, absolute ranges from an
-- iCalendar import) read in the calendar's zone (core/calendars/calendar-rules.ts), and the schedules that follow them,
-- each with a policy for a blocked fire (skip it, or shift it to the previous / next allowed instant), in order.

CREATE TABLE "calendars" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "timezone" TEXT NOT NULL,
    -- {dates: ["YYYY-MM-DD"], weekdays: [0..6], windows: [{weekdays, start, end}], ranges: [{start, end, summary?}]}:
    -- validated on the way in (core/calendars/calendar-input.ts), read as a whole by the planner.
    "rules" JSONB NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),

    CONSTRAINT "calendars_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "calendars_rules_object" CHECK (jsonb_typeof("rules") = 'object')
);
-- Schedules name a calendar; two calendars whose names differ only in case would be one typo apart.
CREATE UNIQUE INDEX "calendars_name_key" ON "calendars" (lower("name"));

CREATE TABLE "schedule_calendars" (
    "schedule_id" UUID NOT NULL,
    "calendar_id" UUID NOT NULL,
    "policy" TEXT NOT NULL,
    -- The order the calendars apply in (the first that blocks a fire decides).
    "position" INTEGER NOT NULL,

    CONSTRAINT "schedule_calendars_pkey" PRIMARY KEY ("schedule_id", "position"),
    CONSTRAINT "schedule_calendars_policy" CHECK ("policy" IN ('skip', 'shift_previous', 'shift_next'))
);
CREATE UNIQUE INDEX "schedule_calendars_schedule_calendar_key" ON "schedule_calendars" ("schedule_id", "calendar_id");
-- "Which schedules follow this calendar": a calendar's edit replans them, its delete is refused while any does.
CREATE INDEX "schedule_calendars_calendar_id_idx" ON "schedule_calendars" ("calendar_id");
ALTER TABLE "schedule_calendars" ADD CONSTRAINT "schedule_calendars_schedule_id_fkey" FOREIGN KEY ("schedule_id") REFERENCES "schedules"("id") ON DELETE CASCADE ON UPDATE CASCADE;
-- A calendar in use cannot disappear under its schedules (the API answers 409 calendar_in_use first, naming them).
ALTER TABLE "schedule_calendars" ADD CONSTRAINT "schedule_calendars_calendar_id_fkey" FOREIGN KEY ("calendar_id") REFERENCES "calendars"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- A calendar's or a schedule's calendar links changing changes what the schedules pages show.
CREATE TRIGGER calendars_console_schedules_version AFTER INSERT OR UPDATE OR DELETE ON "calendars"
    FOR EACH STATEMENT EXECUTE FUNCTION vigil_bump_console_schedules_version();
CREATE TRIGGER schedule_calendars_console_schedules_version AFTER INSERT OR UPDATE OR DELETE ON "schedule_calendars"
    FOR EACH STATEMENT EXECUTE FUNCTION vigil_bump_console_schedules_version();
