// Whether a backed-up queue went through the step (vigil_run_step, core/runs/step/run-step.ts): its calls as
// PostgreSQL counts them per function (pg_stat_user_functions), which needs track_functions on the test database.
import type pg from "pg";
import { waitFor } from "./wait-for";

/** Turns on per-function counts for the test database's new sessions (start the workers after it). */
export async function countFunctionCalls(pool: pg.Pool): Promise<void> {
  await pool.query(`DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET track_functions = %L', current_database(), 'pl'); END $$`);
}

/** Waits until the workers' step calls are counted (a session flushes its statistics shortly after going idle); returns how many. */
export async function waitForStepCalls(pool: pg.Pool): Promise<number> {
  let calls = 0;
  await waitFor(
    "the workers' steps to be counted",
    async () =>
      (calls = Number(
        (await pool.query(`SELECT coalesce(sum(calls), 0) AS n FROM pg_stat_user_functions WHERE funcname = 'vigil_run_step'`)).rows[0].n,
      )) > 0,
    { timeoutMs: 30_000, intervalMs: 500 },
  );
  return calls;
}
