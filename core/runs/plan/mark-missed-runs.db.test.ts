import { describe, expect, it } from "vitest";
import { usePoolAndBoss, useTestDatabase } from "../../../test/db";
import { insertRun, insertSchedule } from "../../../test/run-fixtures";
import { findSchedulesToSweep } from "./mark-missed-runs";

const db = useTestDatabase("mark_missed_runs");
const h = usePoolAndBoss(db);

/** The sweep's search without the due_at prefilter (the query before it): what findSchedulesToSweep must agree with. */
const UNFILTERED_SQL = `
  SELECT DISTINCT r.schedule_id
    FROM runs r JOIN schedules s ON s.id = r.schedule_id
   WHERE r.state IN ('planned', 'queued') AND r.due_at <= clock_timestamp()
     AND NOT (r.state = 'planned' AND r.wait_reason IS NOT NULL)
     AND s.deleted_at IS NULL
     AND (NOT (s.paused_at IS NOT NULL AND (s.paused_until IS NULL OR s.paused_until > clock_timestamp())) OR r.kind = 'manual')
     AND clock_timestamp() > r.due_at + make_interval(secs => s.starting_deadline_seconds)
  UNION
  SELECT r.schedule_id
    FROM runs r JOIN schedules s ON s.id = r.schedule_id
   WHERE (s.paused_at IS NOT NULL AND (s.paused_until IS NULL OR s.paused_until > clock_timestamp())) AND s.deleted_at IS NULL
     AND r.kind = 'scheduled' AND r.state IN ('planned', 'queued') AND r.wait_reason IS NULL
     AND r.due_at <= clock_timestamp() AND r.planned_at <= clock_timestamp()
   GROUP BY r.schedule_id, s.misfire_policy, s.catch_up_limit
  HAVING count(*) > CASE s.misfire_policy WHEN 'skip' THEN 0 WHEN 'run_once' THEN 1 ELSE s.catch_up_limit END`;

async function schedule(startingDeadlineSeconds: number, runsDueInMs: number[], state: "planned" | "queued" = "queued"): Promise<string> {
  const id = await insertSchedule(h.pool, { handler: "demo.noop", startingDeadlineSeconds });
  for (const inMs of runsDueInMs) {
    const runId = await insertRun(h.pool, id, { inMs });
    await h.pool.query(`UPDATE runs SET state = $2 WHERE id = $1`, [runId, state]);
  }
  return id;
}

describe("the misfire sweep's search (findSchedulesToSweep) reads only runs that can be past their deadline", () => {
  it("finds every schedule with a run past ITS deadline, whatever the other schedules' deadlines — as the unfiltered search does", async () => {
    // A long deadline beside short ones: a prefilter bounded by anything but the smallest live deadline misses these.
    const shortOverdue = await schedule(2, [-10_000]);
    const shortPlannedOverdue = await schedule(3, [-20_000], "planned");
    const longNotYet = await schedule(3600, [-10_000, -100_000]);
    const longOverdue = await schedule(3600, [-3_700_000]);
    const justDue = await schedule(2, [-500, 0, 5_000]);
    // A deleted schedule with the smallest deadline of all neither appears nor narrows anything.
    const deleted = await schedule(1, [-30_000]);
    await h.pool.query(`UPDATE schedules SET deleted_at = now() WHERE id = $1`, [deleted]);
    // A paused schedule's manual run still counts; its scheduled fires are the second part's.
    const pausedManual = await schedule(2, [-10_000]);
    await h.pool.query(`UPDATE schedules SET paused_at = now() WHERE id = $1`, [pausedManual]);

    const found = await findSchedulesToSweep(h.pool);
    const unfiltered = (await h.pool.query<{ schedule_id: string }>(UNFILTERED_SQL)).rows.map((r) => r.schedule_id);
    expect(new Set(found)).toEqual(new Set([shortOverdue, shortPlannedOverdue, longOverdue, pausedManual]));
    expect(new Set(found)).toEqual(new Set(unfiltered));
    expect(found).not.toContain(longNotYet);
    expect(found).not.toContain(justDue);
    expect(found).not.toContain(deleted);
  });

  it("with one live schedule of a short deadline among many long ones, still finds that schedule's overdue run", async () => {
    await h.pool.query(`UPDATE schedules SET deleted_at = now()`);
    for (let i = 0; i < 5; i++) await schedule(7200, [-60_000 * (i + 1)]);
    const short = await schedule(1, [-4_000]);
    expect(await findSchedulesToSweep(h.pool)).toEqual([short]);
    // Once that schedule is gone, the bound is the long deadline and nothing is overdue.
    await h.pool.query(`UPDATE schedules SET deleted_at = now() WHERE id = $1`, [short]);
    expect(await findSchedulesToSweep(h.pool)).toEqual([]);
  });
});
