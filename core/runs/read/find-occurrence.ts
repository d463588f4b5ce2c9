// A scheduled occurrence by what identifies it: its schedule and planned instant (the timeline sends no run ids
// for scheduled runs, which are unique on that pair once superseded ones are left out; see timeline.ts).
import { type Queryable } from "../../db/pool";
import { NotFoundError } from "../../errors";

export async function findOccurrence(db: Queryable, scheduleId: string, plannedAtMs: number): Promise<{ id: string }> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM runs
      WHERE schedule_id = $1 AND kind = 'scheduled' AND idempotency_key NOT LIKE 'superseded:%'
        AND planned_at >= to_timestamp($2::float8 / 1000) AND planned_at < to_timestamp(($2::float8 + 1) / 1000)`,
    [scheduleId, plannedAtMs],
  );
  if (!rows[0]) throw new NotFoundError(`A scheduled run of this schedule planned at ${new Date(plannedAtMs).toISOString()}`);
  return rows[0];
}
