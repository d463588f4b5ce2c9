// Folds the read models' appended deltas: the fleet models' into their minute rows (migration
// 20261203900000_fleet_model_deltas) and the per-schedule trouble counters' into their rows (20261204100000), each
// by one caller at a time across workers (the others get -1 at once). Readers are exact before and after a fold;
// the fold only keeps the delta tables short so a read sums a few rows.
import type { Queryable } from "../db/pool";

/** How many delta rows were folded, or -1 when another worker was folding. */
export async function foldFleetDeltas(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ fleet: number; trouble: number }>(
    `SELECT vigil_fleet_fold() AS fleet, vigil_schedule_trouble_fold() AS trouble`,
  );
  const { fleet, trouble } = rows[0]!;
  return fleet < 0 || trouble < 0 ? -1 : fleet + trouble;
}
