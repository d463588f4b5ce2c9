import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/db";
import { getPool } from "../../db/pool";
import { getQueueSummary } from "../../metrics/get-queue-summary";
import { planDueSchedules } from "./plan-due-schedules";
import { measurePlanAhead, measurePlannerLag } from "./plan-lag";

useTestDatabase("plan_lag");

const HORIZON = 120;

// One-off triggers far ahead: planning them writes no row, so no overdue run adds lag of its own once they are planned.
const ONCE = '{"kind":"once","at":"2099-01-01T00:00:00Z"}';

/** Schedules inserted behind the API's back (seeding, bulk SQL): no cursor yet, created `agoSeconds` ago. */
async function insertUnplanned(prefix: string, count: number, agoSeconds: number): Promise<void> {
  await getPool().query(
    `INSERT INTO schedules (name, handler, trigger, created_at)
     SELECT $1 || g, 'demo.noop', $4, clock_timestamp() - make_interval(secs => $3::float8)
       FROM generate_series(1, $2::int) g`,
    [prefix, count, agoSeconds, ONCE],
  );
}

describe("planner lag", () => {
  it("counts schedules never planned from their creation instant, and drops to zero once they are planned", async () => {
    // One schedule planned well ahead: on its own it reads no lag.
    await getPool().query(
      `INSERT INTO schedules (name, handler, trigger, planned_through)
       VALUES ('ahead', 'demo.noop', '{"kind":"interval","everySeconds":60}', clock_timestamp() + interval '10 minutes')`,
    );
    expect(await measurePlannerLag(getPool())).toBe(0);
    await insertUnplanned("never-planned-", 50, 600);
    // Ten minutes of fires of 50 schedules have no rows: that is lag, not nothing.
    expect(await measurePlannerLag(getPool())).toBeGreaterThanOrEqual(599_000);
    const ahead = await measurePlanAhead(getPool(), HORIZON);
    expect(ahead.behind).toBe(50);
    expect(ahead.backlog).toBe(50);
    // What the workers page and GET /api/metrics (vigil_planner_schedules_behind) show.
    expect((await getQueueSummary(getPool(), 10_000)).schedulesBehindPlan).toBe(50);

    await planDueSchedules(getPool(), { horizonSeconds: HORIZON });
    expect(await measurePlannerLag(getPool())).toBe(0);
    expect(await measurePlanAhead(getPool(), HORIZON)).toMatchObject({ lagMs: 0, behind: 0, backlog: 0 });
    expect((await getQueueSummary(getPool(), 10_000)).schedulesBehindPlan).toBe(0);
  });

  it("counts a schedule planned too little (cursor behind now) from its cursor", async () => {
    await getPool().query(
      `INSERT INTO schedules (name, handler, trigger, planned_through)
       VALUES ('behind', 'demo.noop', $1, clock_timestamp() - interval '5 minutes')`,
      [ONCE],
    );
    expect(await measurePlannerLag(getPool())).toBeGreaterThanOrEqual(299_000);
    expect((await measurePlanAhead(getPool(), HORIZON)).behind).toBe(1);
    await planDueSchedules(getPool(), { horizonSeconds: HORIZON });
    expect(await measurePlannerLag(getPool())).toBe(0);
  });
});
