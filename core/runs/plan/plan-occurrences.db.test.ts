import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PgBoss } from "pg-boss";
import { useTestDatabase } from "../../../test/db";
import { getPool, withTransaction } from "../../db/pool";
import { startBoss } from "../../queue/boss";
import { systemActor } from "../../auth/roles";
import { createSchedule } from "../../schedules/create-schedule";
import { getScheduleOrThrow } from "../../schedules/schedule-record";
import { planDueSchedules, planScheduleThrough } from "./plan-due-schedules";
import { ENQUEUE_AHEAD_MS, enqueueDueRuns } from "./enqueue-due-runs";
import { measurePlannerLag } from "./plan-lag";
import { jobIdFor } from "../../queue/job-id";

const db = useTestDatabase("plan_occurrences");
const actor = systemActor("test");
let boss: PgBoss;

beforeAll(async () => {
  const quiet = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} } as never;
  boss = await startBoss({ connectionString: db.url, log: quiet, supervise: false });
});
afterAll(async () => {
  await boss?.stop({ graceful: false, close: true });
});

const noop = { handler: "demo.noop", payload: {} };

describe("planning occurrences", () => {
  it("writes each fire once, however many planners run at the same time", async () => {
    const s = await createSchedule({ name: "every-second", ...noop, trigger: { kind: "interval", everySeconds: 1 } }, actor);
    await Promise.all([1, 2, 3, 4].map(() => planDueSchedules(getPool(), { horizonSeconds: 30 })));
    await planDueSchedules(getPool(), { horizonSeconds: 30 });
    const { rows } = await getPool().query(
      `SELECT planned_at, count(*)::int AS n FROM runs WHERE schedule_id = $1 GROUP BY planned_at ORDER BY planned_at`,
      [s.id],
    );
    expect(rows.length).toBeGreaterThanOrEqual(29);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    // Fires are anchor + k seconds: one second apart, strictly after the creation instant.
    const created = (await getScheduleOrThrow(getPool(), s.id)).createdAt.getTime();
    rows.forEach((r, i) => expect(r.planned_at.getTime()).toBe(created + (i + 1) * 1000));
    const events = await getPool().query(
      `SELECT count(*)::int AS n FROM run_events e JOIN runs r ON r.id = e.run_id WHERE r.schedule_id = $1 AND e.type = 'planned'`,
      [s.id],
    );
    expect(events.rows[0].n).toBe(rows.length);
  });

  it("enqueues what is due soon with exactly one pg-boss job per run, due at the run's due time", async () => {
    const s = await createSchedule(
      { name: "enqueue-me", ...noop, trigger: { kind: "interval", everySeconds: 2 }, startJitterMs: 500 },
      actor,
    );
    await planDueSchedules(getPool(), { horizonSeconds: 60 });
    // The enqueue horizon is judged on the database clock while enqueueing; bracket that moment so a
    // slow machine cannot move a run across the boundary between the enqueue and this check.
    const before = (await getPool().query(`SELECT clock_timestamp() AS t`)).rows[0].t as Date;
    await Promise.all([1, 2, 3].map(() => enqueueDueRuns(getPool(), boss)));
    const after = (await getPool().query(`SELECT clock_timestamp() AS t`)).rows[0].t as Date;
    const { rows } = await getPool().query(
      `SELECT r.id, r.due_at, r.state, r.wakes,
              (SELECT count(*)::int FROM pgboss.job j WHERE j.data->>'runId' = r.id::text) AS jobs
         FROM runs r WHERE r.schedule_id = $1 ORDER BY r.planned_at`,
      [s.id],
    );
    const queued = rows.filter((r) => r.state === "queued");
    expect(queued.length).toBeGreaterThanOrEqual(4);
    for (const r of rows) {
      const due = r.due_at.getTime();
      if (due < before.getTime() + ENQUEUE_AHEAD_MS) expect(r.state).toBe("queued");
      else if (due >= after.getTime() + ENQUEUE_AHEAD_MS) expect(r.state).toBe("planned");
    }
    for (const r of queued) {
      expect(r.jobs).toBe(1);
      const job = await getPool().query(`SELECT start_after FROM pgboss.job WHERE id = $1`, [jobIdFor(r.id, 1, 0)]);
      expect(job.rows[0].start_after.getTime()).toBe(r.due_at.getTime());
    }
    for (const r of rows.filter((x) => x.state === "planned")) expect(r.jobs).toBe(0);
    expect(await measurePlannerLag(getPool())).toBe(0);
  });

  it("keeps planning the other schedules when one trigger cannot be computed", async () => {
    const good = await createSchedule({ name: "good-neighbour", ...noop, trigger: { kind: "interval", everySeconds: 5 } }, actor);
    const bad = await createSchedule({ name: "broken-zone", ...noop, trigger: { kind: "interval", everySeconds: 5 } }, actor);
    // A stored trigger gone bad behind the API's back (hand-edited row, a zone removed from the tz database).
    await getPool().query(
      `UPDATE schedules SET trigger = '{"kind":"cron","cron":"* * * * *","timezone":"Nowhere/Gone","dst":{"gap":"shift","repeat":"once"}}' WHERE id = $1`,
      [bad.id],
    );
    await planDueSchedules(getPool(), { horizonSeconds: 30 });
    const count = async (id: string) =>
      (await getPool().query(`SELECT count(*)::int AS n FROM runs WHERE schedule_id = $1`, [id])).rows[0].n;
    expect(await count(good.id)).toBeGreaterThanOrEqual(5);
    expect(await count(bad.id)).toBe(0);
    expect(await measurePlannerLag(getPool())).toBeGreaterThan(0);
    await getPool().query(`UPDATE schedules SET deleted_at = now() WHERE id = $1`, [bad.id]);
  });

  it("stores the documented instants across DST transitions (America/New_York, 2026)", async () => {
    const spring = await createSchedule(
      { name: "ny-0230", ...noop, trigger: { kind: "cron", cron: "30 2 * * *", timezone: "America/New_York" } },
      actor,
    );
    const fall = await createSchedule(
      { name: "ny-0130", ...noop, trigger: { kind: "cron", cron: "30 1 * * *", timezone: "America/New_York" } },
      actor,
    );
    const planDay = async (id: string, from: string, until: string) =>
      withTransaction(async (tx) => {
        await tx.query(`UPDATE schedules SET planned_through = $2 WHERE id = $1`, [id, from]);
        await planScheduleThrough(tx, await getScheduleOrThrow(tx, id, { lock: true }), new Date(until));
        const { rows } = await tx.query(`SELECT planned_at FROM runs WHERE schedule_id = $1 AND planned_at <= $2 ORDER BY planned_at`, [
          id,
          until,
        ]);
        return rows.map((r) => r.planned_at.toISOString());
      }, getPool());
    // 02:30 does not exist on 03-08 (02:00 EST → 03:00 EDT): it runs once at 03:00 EDT = 07:00Z.
    expect(await planDay(spring.id, "2026-03-07T00:00:00Z", "2026-03-10T00:00:00Z")).toEqual([
      "2026-03-07T07:30:00.000Z",
      "2026-03-08T07:00:00.000Z",
      "2026-03-09T06:30:00.000Z",
    ]);
    // 01:30 happens twice on 11-01 (02:00 EDT → 01:00 EST): it runs once, at the first (EDT, 05:30Z).
    expect(await planDay(fall.id, "2026-10-31T00:00:00Z", "2026-11-03T00:00:00Z")).toEqual([
      "2026-10-31T05:30:00.000Z",
      "2026-11-01T05:30:00.000Z",
      "2026-11-02T06:30:00.000Z",
    ]);
  });
});
