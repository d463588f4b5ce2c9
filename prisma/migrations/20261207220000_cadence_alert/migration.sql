-- The cadence alert (core/alerts/cadence-check.ts): a schedule whose recorded fires over a recent window differ from
-- its plan. The kind check lists every kind of core/alerts/alert-kinds.ts.
ALTER TABLE "alerts" DROP CONSTRAINT "alerts_kind";
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_kind" CHECK ("kind" IN (
  'late', 'completion_deadline', 'missed', 'hollow', 'zombie', 'failures', 'no_worker', 'planner_lag', 'no_handler_worker',
  'cadence'));
