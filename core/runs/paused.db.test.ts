// "Paused" has one owner (paused.ts): its TypeScript and SQL forms agree over a table of cases, and a schedule
// whose pause `until` has passed — before the planner's auto-resume has cleared it — is not paused for any
// reader: the schedules list and detail, the timeline, the planner's enqueue and the claim's scope. Only the
// auto-resume still sees the pause, to clear it.
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase, usePoolAndBoss } from "@/test/db";
import { insertRun } from "@/test/run-fixtures";
import { systemActor } from "@/core/auth/roles";
import { getPool } from "@/core/db/pool";
import { listSchedules } from "@/core/schedules/list-schedules";
import { pauseSchedule } from "@/core/schedules/pause-schedule";
import { autoResumeDueSchedules, resumeSchedule } from "@/core/schedules/resume-schedule";
import { getScheduleOrThrow } from "@/core/schedules/schedule-record";
import { enqueueDueRuns } from "./plan/enqueue-due-runs";
import { lockRunBatch } from "./locks/lock-run-scope";
import { isPaused, isPauseOver, pausedSql, pauseOverSql } from "./paused";
import { getTimeline } from "./read/timeline";

const db = useTestDatabase("paused");
const h = usePoolAndBoss(db);
const actor = systemActor("test");

describe("the TypeScript rule and its SQL twin", () => {
  it("agree over a table of pause records and instants", async () => {
    const now = new Date("2026-12-01T10:00:00.000Z");
    const at = (s: number) => new Date(now.getTime() + s * 1000);
    const cases: [Date | null, Date | null][] = [
      [null, null],
      [null, at(60)],
      [at(-600), null],
      [at(-600), at(60)],
      [at(-600), at(0.001)],
      [at(-600), now],
      [at(-600), at(-0.001)],
      [at(-600), at(-60)],
      [now, null],
      [at(60), at(120)],
    ];
    const { rows } = await getPool().query<{ paused: boolean; over: boolean }>(
      `SELECT ${pausedSql("x", "$3::timestamptz")} AS paused, coalesce(${pauseOverSql("x", "$3::timestamptz")}, false) AS over
         FROM unnest($1::timestamptz[], $2::timestamptz[]) WITH ORDINALITY AS x(paused_at, paused_until, i) ORDER BY x.i`,
      [cases.map((c) => c[0]), cases.map((c) => c[1]), now],
    );
    expect(rows.map((r) => r.paused)).toEqual(cases.map(([a, u]) => isPaused({ at: a, until: u }, now)));
    expect(rows.map((r) => r.over)).toEqual(cases.map(([a, u]) => isPauseOver({ at: a, until: u }, now)));
    expect(rows.filter((r) => r.paused && r.over)).toHaveLength(0);
  });
});

describe("a pause whose until has passed is over for every reader", () => {
  const id = { over: "", held: "" };
  const run = { over: "", held: "" };

  beforeAll(async () => {
    const pool = getPool();
    for (const name of ["over", "held"] as const) {
      const { rows } = await pool.query(
        `INSERT INTO schedules (name, handler, trigger, planned_through) VALUES ($1, 'demo.noop', '{"kind":"interval","everySeconds":3600}', clock_timestamp() + interval '1 hour') RETURNING id`,
        [`pause-${name}`],
      );
      id[name] = rows[0].id;
      await pauseSchedule(id[name], { reason: "maintenance", until: new Date(Date.now() + 3_600_000).toISOString() }, actor);
    }
    // Time passes for one of them: its until is now a second ago, and no planner has run since.
    await pool.query(`UPDATE schedules SET paused_until = clock_timestamp() - interval '1 second' WHERE id = $1`, [id.over]);
    for (const name of ["over", "held"] as const) run[name] = await insertRun(pool, id[name], { kind: "scheduled", inMs: -100 });
  });

  it("the schedules list and the detail record show it active, with a next fire", async () => {
    const [over] = await listSchedules(getPool(), { id: id.over });
    expect(over!.paused).toBeNull();
    expect(over!.enabled).toBe(true);
    expect(over!.nextFireAt).not.toBeNull();
    expect((await getScheduleOrThrow(getPool(), id.over)).paused).toBeNull();
    const [held] = await listSchedules(getPool(), { id: id.held });
    expect(held!.paused?.reason).toBe("maintenance");
    expect(held!.enabled).toBe(false);
  });

  it("the timeline draws its lane as not paused", async () => {
    const t = await getTimeline(getPool(), { from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 60_000) });
    expect(Object.fromEntries(t.schedules.map((s) => [s.name, s.paused]))).toEqual({ "pause-over": false, "pause-held": true });
  });

  it("the claim's scope and the planner's enqueue treat it as running again; the paused one's run stays held", async () => {
    const scope = await lockRunBatch(getPool(), [run.over, run.held]);
    expect(scope.schedules.get(id.over)?.paused).toBe(false);
    expect(scope.schedules.get(id.held)?.paused).toBe(true);
    await enqueueDueRuns(h.pool, h.boss);
    const { rows } = await getPool().query(`SELECT id, state FROM runs WHERE id = ANY($1::uuid[])`, [[run.over, run.held]]);
    expect(Object.fromEntries(rows.map((r) => [r.id === run.over ? "over" : "held", r.state]))).toEqual({
      over: "queued",
      held: "planned",
    });
  });

  it("an operator cannot resume it (it is not paused); the planner's auto-resume clears it, audited", async () => {
    await expect(resumeSchedule(id.over, {}, actor)).rejects.toMatchObject({ code: "not_paused" });
    expect(await autoResumeDueSchedules(getPool())).toBe(1);
    const { rows } = await getPool().query(`SELECT paused_at, enabled FROM schedules WHERE id = $1`, [id.over]);
    expect(rows[0]).toEqual({ paused_at: null, enabled: true });
    const { rows: audit } = await getPool().query(`SELECT action FROM audit_events WHERE target_id = $1 ORDER BY id DESC LIMIT 1`, [
      id.over,
    ]);
    expect(audit[0].action).toBe("schedule.auto_resume");
  });
});
