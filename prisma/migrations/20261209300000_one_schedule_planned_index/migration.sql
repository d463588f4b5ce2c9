-- Every update of a run that is not HOT (each state change: the state is in most indexes' predicates) enters every
-- index that has no predicate. Two of them had the same key, (schedule_id, planned_at): runs_schedule_id_planned_at_idx
-- over every row, for the readers of one schedule's runs in planned order (runs list, timeline, retention), and the
-- unique runs_schedule_planned_key over the rows that hold a scheduled slot (one occurrence per planned firing).
-- One index now does both: its third key is true for a row that holds a slot and null for any other, and a unique
-- index never finds two nulls equal, so only slot holders can collide, as under the old predicate; the readers use
-- its first two columns as before. Each run's insert and each of its state changes write one index entry less.
CREATE UNIQUE INDEX "runs_schedule_planned_slot_key" ON "runs"(
  "schedule_id", "planned_at",
  (CASE WHEN "kind" = 'scheduled' AND "idempotency_key" NOT LIKE 'superseded:%' AND "state" <> 'excluded' THEN true END)
);
DROP INDEX "runs_schedule_planned_key";
DROP INDEX "runs_schedule_id_planned_at_idx";
ALTER INDEX "runs_schedule_planned_slot_key" RENAME TO "runs_schedule_planned_key";
