// Folds the fleet models' appended deltas into their minute rows (migration 20261203900000_fleet_model_deltas):
// one caller at a time across workers (the others get -1 at once). Readers are exact before and after a fold; the
// fold only keeps the delta tables short so a read sums a few rows.
import type { Queryable } from "../db/pool";

/** How many delta rows were folded, or -1 when another worker was folding. */
export async function foldFleetDeltas(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ folded: number }>(`SELECT vigil_fleet_fold() AS folded`);
  return rows[0]!.folded;
}
