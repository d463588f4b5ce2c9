-- Tags on schedules (issue 15): short labels ("payments", "team:billing") an operator filters every list by and
-- pauses by in maintenance mode. A schedule's tags are a small sorted set, kept as an array; the GIN index answers
-- "schedules with tag X" without a scan. The shape of one tag is checked by the schedule input, not here.
ALTER TABLE "schedules" ADD COLUMN "tags" TEXT[] NOT NULL DEFAULT '{}';
CREATE INDEX "schedules_tags_idx" ON "schedules" USING GIN ("tags");
