// Pause, resume, trigger now, backfill and the misfire sweep, driven through core and planner ticks in-process
// (no worker processes: nothing executes, so every state below is the planner's doing).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PgBoss } from "pg-boss";
import { useTestDatabase } from "../../test/db";
import { waitFor } from "../../test/wait-for";
import { firesSoon } from "../../test/fires-soon";
import { dbNow, getPool } from "../db/pool";
import { startBoss } from "../queue/boss";
import { runPlannerTick } from "../runs/plan/plan-tick";
import { createSchedule } from "./create-schedule";
import { pauseSchedule } from "./pause-schedule";
import { resumeSchedule } from "./resume-schedule";
import { triggerNow } from "./trigger-now";
import { backfillSchedule } from "./backfill-schedule";
import type { MisfirePolicy } from "./schedule-input";

const db = useTestDatabase("operator_actions");
const bob = { type: "user" as const, id: null, label: "bob@example.com", role: "operator" as const };
let boss: PgBoss;
const q = async (sql: string, params: unknown[] = []) => (await getPool().query(sql, params)).rows;
const tick = () => runPlannerTick(getPool(), boss, { horizonSeconds: 10 });

beforeAll(async () => {
  const quiet = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} } as never;
  boss = await startBoss({ connectionString: db.url, log: quiet, supervise: false });
});
afterAll(async () => {
  await boss?.stop({ graceful: false, close: true });
});

async function waitForDbTime(at: Date): Promise<void> {
  await waitFor(`database time ${at.toISOString()}`, async () => (await dbNow()).getTime() >= at.getTime(), { timeoutMs: 30_000 });
}

const fourFires = (t0: Date, lead = 2) => firesSoon(t0, { lead });

const schedule = (name: string, misfirePolicy: MisfirePolicy, trigger: unknown, extra: Record<string, unknown> = {}) =>
  createSchedule({ name, handler: "demo.noop", trigger, misfirePolicy, catchUpLimit: 2, startingDeadlineSeconds: 1, ...extra }, bob);

describe("misfire policy after downtime (no planner ran for several intervals)", () => {
  it("skip records every overdue fire missed; run_once runs the newest; catch_up runs the newest two", async () => {
    const { trigger, fires } = fourFires(await dbNow());
    const skip = await schedule("down-skip", "skip", trigger);
    const once = await schedule("down-once", "run_once", trigger);
    const catchUp = await schedule("down-catch-up", "catch_up", trigger);
    const ids = [skip.id, once.id, catchUp.id];
    // Nobody plans or starts anything until every fire is past its 1 s starting deadline.
    await waitForDbTime(new Date(fires[3]!.getTime() + 1500));
    await tick();
    const load = () =>
      q(
        `SELECT r.schedule_id, r.planned_at, r.state, r.wait_reason,
              EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = r.id AND e.type = 'missed') AS missed_event,
              EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = r.id AND e.type = 'replanned' AND e.data->>'rescue' = 'misfire') AS rescued
         FROM runs r WHERE r.schedule_id = ANY($1::uuid[]) ORDER BY r.planned_at`,
        [ids],
      );
    let rows = await load();
    const of = (id: string) => rows.filter((r) => r.schedule_id === id && r.planned_at <= fires[3]!);
    // Every fire has its row; none is silently absent.
    for (const id of ids) expect(of(id).map((r) => r.planned_at)).toEqual(fires);
    const states = (id: string) => of(id).map((r) => (r.state === "missed" && r.missed_event ? "missed" : r.rescued ? "rescued" : r.state));
    expect(states(skip.id)).toEqual(["missed", "missed", "missed", "missed"]);
    expect(states(once.id)).toEqual(["missed", "missed", "missed", "rescued"]);
    expect(states(catchUp.id)).toEqual(["missed", "missed", "rescued", "rescued"]);
    // The same tick enqueued the rescued runs one at a time per schedule, due now, oldest first.
    const waiting = (id: string) =>
      of(id)
        .filter((r) => r.rescued)
        .map((r) => `${r.state}/${r.wait_reason}`);
    expect(waiting(once.id)).toEqual(["queued/null"]);
    expect(waiting(catchUp.id)).toEqual(["queued/null", "planned/catch_up"]);

    // One audit row per schedule for the sweep, by the planner, with counts.
    const audit = await q(
      `SELECT target_id, actor, actor_type, after FROM audit_events WHERE action = 'run.missed' AND target_id = ANY($1::text[])`,
      [ids],
    );
    expect(audit).toHaveLength(3);
    for (const a of audit) expect(a).toMatchObject({ actor: "planner", actor_type: "system" });
    expect(audit.find((a) => a.target_id === catchUp.id).after).toMatchObject({ missed: 2, rescued: 2, policy: "catch_up" });

    // While the first catch-up run is queued (nothing executes here), the second keeps waiting its turn.
    await tick();
    rows = await load();
    expect(waiting(catchUp.id)).toEqual(["queued/null", "planned/catch_up"]);
  });
});

describe("pause and resume", () => {
  for (const [policy, runsOnResume] of [
    ["skip", 0],
    ["run_once", 1],
    ["catch_up", 2],
  ] as const) {
    it(`${policy}: fires in the pause are recorded paused, and a resume runs ${runsOnResume} of them (its dry run says so exactly)`, async () => {
      const { trigger, fires } = fourFires(await dbNow(), 3);
      const s = await schedule(`pause-${policy}`, policy, trigger, { startingDeadlineSeconds: 60 });
      await tick();
      const dry = await pauseSchedule(s.id, { reason: "vendor outage", dryRun: true }, bob);
      expect(dry.dryRun).toBe(true);
      expect((await q(`SELECT paused_at FROM schedules WHERE id = $1`, [s.id]))[0].paused_at).toBeNull();
      const p = await pauseSchedule(s.id, { reason: "vendor outage" }, bob);
      expect(p.held).toBeGreaterThan(0); // runs already queued are taken back
      expect(await q(`SELECT id FROM runs WHERE schedule_id = $1 AND state = 'queued'`, [s.id])).toEqual([]);
      await waitForDbTime(new Date(fires[3]!.getTime() + 500));
      await tick();
      const inPause = await q(`SELECT planned_at, state FROM runs WHERE schedule_id = $1 AND planned_at <= $2 ORDER BY planned_at`, [
        s.id,
        fires[3],
      ]);
      expect(inPause.map((r) => r.planned_at)).toEqual(fires);
      // As they pass, fires are recorded paused, except the newest ones a resume will run (held, still planned).
      expect(inPause.map((r) => r.state)).toEqual([...Array(4 - runsOnResume).fill("paused"), ...Array(runsOnResume).fill("planned")]);

      const preview = await resumeSchedule(s.id, { dryRun: true }, bob);
      expect(preview).toMatchObject({
        dryRun: true,
        count: runsOnResume,
        plannedAt: fires.slice(4 - runsOnResume).map((f) => f.toISOString()),
      });
      expect((await q(`SELECT paused_at FROM schedules WHERE id = $1`, [s.id]))[0].paused_at).not.toBeNull();
      const done = await resumeSchedule(s.id, {}, bob);
      expect({ ...done, dryRun: true }).toEqual(preview);
      const rescued = await q(`SELECT planned_at FROM runs WHERE schedule_id = $1 AND wait_reason = 'catch_up' ORDER BY planned_at`, [
        s.id,
      ]);
      expect(rescued.map((r) => r.planned_at.toISOString())).toEqual(done.plannedAt);
      const audit = await q(
        `SELECT action, reason, after FROM audit_events WHERE target_id = $1 AND action LIKE 'schedule.%' ORDER BY id`,
        [s.id],
      );
      expect(audit.map((a) => a.action)).toEqual(["schedule.create", "schedule.pause", "schedule.resume"]);
      expect(audit[1].reason).toBe("vendor outage");
      expect(audit[2].after).toMatchObject({ runsEnqueued: runsOnResume, recordedPaused: 4 - runsOnResume });
    });
  }

  it("resumes by itself at `until`, audited as the planner", async () => {
    const s = await schedule("auto-resume", "skip", { kind: "interval", everySeconds: 1 });
    const until = new Date((await dbNow()).getTime() + 1500);
    await pauseSchedule(s.id, { reason: "short break", until: until.toISOString() }, bob);
    await tick();
    expect((await q(`SELECT paused_at FROM schedules WHERE id = $1`, [s.id]))[0].paused_at).not.toBeNull();
    await waitForDbTime(until);
    await tick();
    expect((await q(`SELECT paused_at FROM schedules WHERE id = $1`, [s.id]))[0].paused_at).toBeNull();
    const audit = await q(`SELECT actor, actor_type FROM audit_events WHERE target_id = $1 AND action = 'schedule.auto_resume'`, [s.id]);
    expect(audit).toEqual([{ actor: "planner", actor_type: "system" }]);
  });

  it("trigger now runs even while paused; backfill waits for the resume and drains one at a time", async () => {
    const s = await createSchedule(
      { name: "actions", handler: "demo.noop", trigger: { kind: "cron", cron: "0 3 * * *", timezone: "UTC" } },
      bob,
    );
    await pauseSchedule(s.id, { reason: "hold" }, bob);
    const t = await triggerNow(s.id, { reason: "asked by finance" }, bob);
    const now = await dbNow();
    const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 5));
    const b = await backfillSchedule(
      s.id,
      { from: from.toISOString(), to: new Date(from.getTime() + 3 * 86_400_000 - 1).toISOString() },
      bob,
    );
    expect(b.plannedAt).toHaveLength(3);
    await tick();
    const state = async (kind: string) =>
      (await q(`SELECT state FROM runs WHERE schedule_id = $1 AND kind = $2 ORDER BY planned_at`, [s.id, kind])).map((r) => r.state);
    expect((await q(`SELECT state FROM runs WHERE id = $1`, [t.runId]))[0].state).toBe("queued");
    expect(await state("backfill")).toEqual(["planned", "planned", "planned"]);
    await q(`UPDATE runs SET state = 'succeeded' WHERE id = $1`, [t.runId]); // stands in for the executor
    await resumeSchedule(s.id, {}, bob);
    await tick();
    expect(await state("backfill")).toEqual(["queued", "planned", "planned"]);
    await tick();
    expect(await state("backfill")).toEqual(["queued", "planned", "planned"]);
    await q(`UPDATE runs SET state = 'succeeded' WHERE schedule_id = $1 AND kind = 'backfill' AND state = 'queued'`, [s.id]);
    await tick();
    expect(await state("backfill")).toEqual(["succeeded", "queued", "planned"]);
  });
});
