// What a worker does to seeded history that a bench runs without one: the planner's misfire sweep (plan-tick.ts) over
// the occurrences that came due while seeding, then the fold of the fleet models' and trouble counters' deltas.
// The seeded schedules are paused, so a real fleet would hold their due fires as the sweep does: all but the one the
// misfire policy keeps for the resume (run_once, the default: the newest) recorded `paused`. Without the sweep those
// fires stay `planned` and every read of runs in flight reads them (2,650 at 1,000 schedules after a 3-minute seed),
// which no real fleet would carry; with it, the one held fire per schedule is what remains, as in a real paused fleet.
import type pg from "pg";
import { findSchedulesToSweep, sweepMisfires } from "../../core/runs/plan/mark-missed-runs";

/** Returns the number of due fires recorded `paused` (or missed) by the sweep. */
export async function settleSeededLikeAWorker(pool: pg.Pool): Promise<number> {
  const swept = await sweepMisfires(pool, await findSchedulesToSweep(pool));
  await pool.query("SELECT vigil_fleet_fold(), vigil_schedule_trouble_fold()");
  return swept.reduce((n, s) => n + s.paused + s.missed, 0);
}
