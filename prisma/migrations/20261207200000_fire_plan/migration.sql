-- The fire plan (core/schedules/fire-plan.ts): start and end dates on a schedule, the trigger's own instant on a
-- run (nominal_at; planned_at is where a calendar moved it), and a new terminal run state, 'excluded' (a fire a
-- calendar removed, or one that collided with another fire moved onto its instant), recorded like 'paused'.

ALTER TABLE "schedules" ADD COLUMN "starts_at" TIMESTAMPTZ(3), ADD COLUMN "ends_at" TIMESTAMPTZ(3);
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_dates" CHECK ("ends_at" IS NULL OR "starts_at" IS NULL OR "ends_at" > "starts_at");

-- Null on rows written before (and on manual runs): the nominal instant is then planned_at.
ALTER TABLE "runs" ADD COLUMN "nominal_at" TIMESTAMPTZ(3);

ALTER TABLE "runs" DROP CONSTRAINT "runs_state";
ALTER TABLE "runs" ADD CONSTRAINT "runs_state" CHECK ("state" IN (
  'planned', 'queued', 'running', 'retrying', 'succeeded', 'failed', 'timed_out', 'cancelled',
  'skipped_overlap', 'missed', 'paused', 'excluded', 'hollow', 'zombie'));

-- An excluded row is recorded at its own (nominal) instant and holds no slot: a fire another calendar shift moved
-- onto that instant runs there. Idempotency stays per nominal fire (runs_idempotency_key_key).
DROP INDEX "runs_schedule_planned_key";
CREATE UNIQUE INDEX "runs_schedule_planned_key" ON "runs"("schedule_id", "planned_at")
  WHERE "kind" = 'scheduled' AND "idempotency_key" NOT LIKE 'superseded:%' AND "state" <> 'excluded';

-- Every read-model function that lists the terminal states (run summaries, fleet counts, …) learns 'excluded'
-- next to 'paused': the functions are rewritten from their current definitions, whichever migration last
-- replaced them, so none is missed or reverted to an older body.
DO $$
DECLARE
  f record;
  def text;
BEGIN
  FOR f IN
    SELECT p.oid FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = current_schema() AND p.prosrc LIKE '%''missed'', ''paused'', ''hollow''%'
  LOOP
    def := pg_get_functiondef(f.oid);
    EXECUTE replace(def, '''missed'', ''paused'', ''hollow''', '''missed'', ''paused'', ''excluded'', ''hollow''');
  END LOOP;
END $$;
