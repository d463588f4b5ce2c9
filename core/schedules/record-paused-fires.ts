// Before a resume settles a pause, the fires no planner wrote while it lasted (workers down during maintenance, a
// planner behind) are written: every fire up to now must have its row. Those that are certain to be recorded
// `paused` — all but the newest ones the misfire policy may run (decideResume keeps the newest of the schedule's
// held fires, and fires not yet written are newer than every row written) — are inserted `paused` at once, so a
// resume of a thousand schedules after a long pause does not insert tens of thousands of rows only to update
// each one again. The rest (the newest few) are planned as usual and decided with the schedule's other held fires.
import { loadScheduleCalendars } from "../calendars/calendar-rules";
import type { Queryable } from "../db/pool";
import { getLogger } from "../log";
import { runsKeptByPolicy } from "../runs/plan/mark-missed-decision";
import { insertOccurrencesOfSchedules, occurrencesBetween, type OccurrenceInput } from "../runs/plan/plan-occurrences";
import { firePlanOf } from "./fire-plan";
import type { Schedule } from "./schedule-record";

const MAX_ROUNDS = 10;
const INSERT_CHUNK = 5000;

/** The caller holds the schedules' row locks. Returns the schedules with their cursors as moved here. */
export async function recordPausedFires(tx: Queryable, schedules: readonly Schedule[], now: Date): Promise<Schedule[]> {
  const byPolicy = new Map<string, (OccurrenceInput & { scheduleId: string })[]>();
  const moved = new Map<string, Date>();
  const links = await loadScheduleCalendars(
    tx,
    schedules.map((s) => s.id),
  );
  for (const s of schedules) {
    const plan = firePlanOf(s, links.get(s.id) ?? []);
    let from = s.plannedThrough ?? s.createdAt;
    const fires: (OccurrenceInput & { scheduleId: string })[] = [];
    try {
      for (let round = 0; round < MAX_ROUNDS && from.getTime() < now.getTime(); round++) {
        const planned = occurrencesBetween(plan, { from, until: now });
        if (planned.items.length === 0) break;
        fires.push(...planned.items);
        from = planned.cursor;
      }
    } catch (err) {
      // Left to the ordinary planning step, which reports a schedule whose fire times cannot be computed.
      getLogger().warn({ err, scheduleId: s.id }, "cannot compute this schedule's fire times; its resume plans nothing ahead");
      continue;
    }
    // The newest fires that would run are the policy's to decide; excluded ones before them are recorded as such.
    const runnable = fires.filter((f) => f.state !== "excluded");
    const firstKept = runnable[Math.max(0, runnable.length - runsKeptByPolicy(s.misfirePolicy, s.catchUpLimit))];
    const paused = firstKept ? fires.slice(0, fires.indexOf(firstKept)) : fires;
    if (paused.length === 0) continue;
    byPolicy.set(s.misfirePolicy, [...(byPolicy.get(s.misfirePolicy) ?? []), ...paused]);
    const last = paused.at(-1)!;
    moved.set(s.id, last.nominalAt ?? last.plannedAt);
  }
  for (const [policy, items] of byPolicy) {
    for (let i = 0; i < items.length; i += INSERT_CHUNK) {
      await insertOccurrencesOfSchedules(tx, "scheduled", items.slice(i, i + INSERT_CHUNK), {
        recordPaused: true,
        message: `fell inside a pause of its schedule; misfire policy ${policy} does not run it`,
        data: { policy },
      });
    }
  }
  if (moved.size > 0) {
    await tx.query(
      `UPDATE schedules s SET planned_through = u.cursor FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, cursor) WHERE s.id = u.id`,
      [[...moved.keys()], [...moved.values()].map((d) => d.toISOString())],
    );
  }
  return schedules.map((s) => (moved.has(s.id) ? { ...s, plannedThrough: moved.get(s.id)! } : s));
}
