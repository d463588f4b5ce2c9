// Start and end dates through the API and the planner, and the edit's dry run (PATCH … dryRun: true): the next
// fires old vs new and the planned rows the edit would supersede, with nothing written.
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { dbNow, getPool } from "@/core/db/pool";
import { planDueSchedules } from "@/core/runs/plan/plan-due-schedules";
import * as schedules from "./route";
import * as one from "./[id]/route";

const db = useTestDatabase("schedule_dates_preview");
let operator: string;

beforeAll(async () => {
  operator = await createTestToken(db.url, "operator");
});

const q = async (sql: string, params: unknown[] = []) => (await getPool().query(sql, params)).rows;
const MIN = 60_000;

async function create(body: Record<string, unknown>) {
  return callRoute(schedules.POST, { method: "POST", token: operator, path: "/api/schedules", body: { handler: "demo.noop", ...body } });
}

describe("start and end dates", () => {
  it("are taken, answered, and an end before the start is refused naming the field", async () => {
    const now = await dbNow();
    const bad = await create({
      name: "backwards",
      trigger: { kind: "interval", everySeconds: 60 },
      startsAt: new Date(now.getTime() + 60 * MIN).toISOString(),
      endsAt: new Date(now.getTime() + 30 * MIN).toISOString(),
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields.endsAt).toMatch(/must be after the start date/);

    const res = await create({
      name: "dated",
      trigger: { kind: "interval", everySeconds: 60 },
      startsAt: new Date(now.getTime() + 2 * MIN).toISOString(),
      endsAt: "2030-01-01T00:00:00+01:00",
    });
    expect(res.status).toBe(200);
    expect(res.body.schedule.endsAt).toBe("2029-12-31T23:00:00.000Z");
    // An edit is checked against the stored pair.
    const edit = await callRoute(one.PATCH, {
      method: "PATCH",
      token: operator,
      params: { id: res.body.schedule.id },
      body: { revision: 1, endsAt: new Date(now.getTime() + MIN).toISOString() },
    });
    expect(edit.status).toBe(422);
    expect(edit.body.error.fields).toHaveProperty("endsAt");
  });

  it("the planner writes no fire before the start nor after the end", async () => {
    const now = await dbNow();
    const startsAt = new Date(now.getTime() + 3 * MIN);
    const endsAt = new Date(now.getTime() + 6 * MIN);
    const res = await create({
      name: "window-only",
      trigger: { kind: "interval", everySeconds: 30 },
      startsAt: startsAt.toISOString(),
      endsAt: endsAt.toISOString(),
    });
    await planDueSchedules(getPool(), { horizonSeconds: 600 });
    const rows = await q(`SELECT planned_at FROM runs WHERE schedule_id = $1 ORDER BY planned_at`, [res.body.schedule.id]);
    expect(rows.length).toBeGreaterThanOrEqual(5);
    for (const r of rows) {
      expect(r.planned_at.getTime()).toBeGreaterThanOrEqual(startsAt.getTime());
      expect(r.planned_at.getTime()).toBeLessThanOrEqual(endsAt.getTime());
    }
  });
});

describe("the excluded state", () => {
  it("is terminal for every read-model function that lists the terminal states", async () => {
    const fns = await q(
      `SELECT p.proname, p.prosrc LIKE '%''paused'', ''excluded'', ''hollow''%' AS knows
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND p.prosrc LIKE '%''missed'', ''paused''%'`,
    );
    expect(fns.length).toBeGreaterThan(0);
    expect(fns.filter((f) => !f.knows).map((f) => f.proname)).toEqual([]);
  });
});

describe("an edit's dry run", () => {
  it("answers the next fires before and after and the rows it would supersede, and writes nothing", async () => {
    const res = await create({ name: "every-five", trigger: { kind: "cron", cron: "*/5 * * * *", timezone: "UTC" } });
    const id = res.body.schedule.id as string;
    await planDueSchedules(getPool(), { horizonSeconds: 3600 });
    const planned = await q(`SELECT id, planned_at FROM runs WHERE schedule_id = $1 AND state = 'planned' ORDER BY planned_at`, [id]);
    expect(planned.length).toBeGreaterThanOrEqual(11);
    const snapshot = async () => ({
      runs: await q(`SELECT id, state, idempotency_key FROM runs WHERE schedule_id = $1 ORDER BY id`, [id]),
      schedule: await q(`SELECT trigger, revision, planned_through FROM schedules WHERE id = $1`, [id]),
      audit: await q(`SELECT count(*)::int AS n FROM audit_events WHERE target_id = $1`, [id]),
    });
    const before = await snapshot();

    const dry = await callRoute(one.PATCH, {
      method: "PATCH",
      token: operator,
      params: { id },
      body: { revision: 1, trigger: { kind: "cron", cron: "*/10 * * * *", timezone: "UTC" }, dryRun: true },
    });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ dryRun: true, changed: ["trigger"], replans: true });
    const minutes = (fires: { plannedAt: string }[]) => fires.map((f) => new Date(f.plannedAt).getUTCMinutes());
    expect(dry.body.before).toHaveLength(10);
    expect(minutes(dry.body.before).every((m: number) => m % 5 === 0)).toBe(true);
    expect(minutes(dry.body.before).some((m: number) => m % 10 !== 0)).toBe(true);
    expect(minutes(dry.body.after).every((m: number) => m % 10 === 0)).toBe(true);
    expect(dry.body.after.every((f: { fate: string }) => f.fate === "run")).toBe(true);
    // Superseded: exactly the planned rows at a :05-type minute in the future.
    const nowMs = (await dbNow()).getTime();
    const expected = planned.filter((r) => r.planned_at.getTime() > nowMs - 5000 && r.planned_at.getUTCMinutes() % 10 !== 0);
    const superseded = dry.body.superseded.map((r: { id: string }) => r.id).sort();
    expect(superseded.length).toBeGreaterThan(0);
    expect(superseded).toEqual(expect.arrayContaining(expected.filter((r) => r.planned_at.getTime() > nowMs + 5000).map((r) => r.id)));
    expect(dry.body.superseded.every((r: { plannedAt: string }) => new Date(r.plannedAt).getUTCMinutes() % 10 !== 0)).toBe(true);
    expect(await snapshot()).toEqual(before);

    // Saving does what the dry run said.
    const saved = await callRoute(one.PATCH, {
      method: "PATCH",
      token: operator,
      params: { id },
      body: { revision: 1, trigger: { kind: "cron", cron: "*/10 * * * *", timezone: "UTC" } },
    });
    expect(saved.status).toBe(200);
    const cancelled = await q(`SELECT id FROM runs WHERE schedule_id = $1 AND idempotency_key LIKE 'superseded:%' ORDER BY id`, [id]);
    expect(cancelled.map((r) => r.id).sort()).toEqual(superseded);
  });

  it("an edit that does not touch the plan shows no difference and supersedes nothing", async () => {
    const res = await create({ name: "describe-me", trigger: { kind: "interval", everySeconds: 60 } });
    const dry = await callRoute(one.PATCH, {
      method: "PATCH",
      token: operator,
      params: { id: res.body.schedule.id },
      body: { revision: 1, description: "new words", dryRun: true },
    });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ changed: ["description"], replans: false, superseded: [] });
    expect(dry.body.after).toEqual(dry.body.before);
  });
});
