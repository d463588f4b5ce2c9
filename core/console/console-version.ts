// The console's change counter: a sequence bumped (by triggers, 20261202700000_console_read_models) whenever a
// run's state or times or a schedule's definition change. Polled reads put it in their ETag, so an unchanged
// answer costs this one read instead of the query behind it.
//
// The bump happens inside the writing transaction, before its commit is visible: a reader can see the new value
// and still read the old rows. The time slice in the tag bounds how long such an answer can be reused (and lets
// answers that slide with the clock, like "the last hour", move on); CONSOLE_VERSION_SLICE_SECONDS long.
import type { Queryable } from "../db/pool";
import { CLOCK_SQL, type ClockPart } from "./clock-boundaries";

export const CONSOLE_VERSION_SLICE_SECONDS = 15;

/**
 * `clock`: what the answer shows that moves with the clock alone (clock-boundaries.ts), hashed into the tag, so the
 * refetch the change stream asks for when such an instant passes gets the new answer, not a 304.
 */
export async function getConsoleVersion(db: Queryable, clock?: ClockPart): Promise<string> {
  const { rows } = await db.query<{ v: string; slice: string; clock: string }>(
    `SELECT last_value::text || CASE WHEN is_called THEN '' ELSE '-' END AS v,
            floor(extract(epoch FROM clock_timestamp()) / $1)::bigint::text AS slice,
            ${clock ? `left(md5(${CLOCK_SQL[clock]}), 12)` : "''"} AS clock
       FROM vigil_console_version`,
    [CONSOLE_VERSION_SLICE_SECONDS],
  );
  const r = rows[0]!;
  return `${r.v}.${r.slice}${r.clock ? `.${r.clock}` : ""}`;
}
