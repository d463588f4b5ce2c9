import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { waitFor } from "@/test/wait-for";
import { getPool } from "@/core/db/pool";
import * as schedules from "../route";
import * as pause from "../[id]/pause/route";
import * as maintenance from "./route";

const db = useTestDatabase("maintenance");
let operator: string;
let viewer: string;

beforeAll(async () => {
  operator = await createTestToken(db.url, "operator");
  viewer = await createTestToken(db.url, "viewer");
});

const ids: Record<string, string> = {};
async function create(name: string, extra: Record<string, unknown> = {}) {
  const res = await callRoute(schedules.POST, {
    method: "POST",
    token: operator,
    path: "/api/schedules",
    body: { name, handler: "demo.noop", payload: {}, trigger: { kind: "interval", everySeconds: 1 }, ...extra },
  });
  expect(res.status).toBe(200);
  ids[name] = res.body.schedule.id;
}
const act = (body: unknown, token = operator) =>
  callRoute(maintenance.POST, { method: "POST", token, path: "/api/schedules/maintenance", body });
const windows = async () => (await callRoute(maintenance.GET, { token: viewer, path: "/api/schedules/maintenance" })).body.maintenance;
const pausedNames = async () =>
  (await getPool().query(`SELECT name FROM schedules WHERE paused_at IS NOT NULL ORDER BY name`)).rows.map((r) => r.name);
const audit = async (action: string) => (await getPool().query(`SELECT * FROM audit_events WHERE action = $1 ORDER BY id`, [action])).rows;

describe("maintenance mode", () => {
  beforeAll(async () => {
    await create("db-backup", { tags: ["db"], misfirePolicy: "run_once" });
    await create("db-vacuum", { tags: ["db"], misfirePolicy: "skip" });
    await create("reports", { misfirePolicy: "catch_up", catchUpLimit: 2 });
    await create("hand-paused");
    const p = await callRoute(pause.POST, {
      method: "POST",
      token: operator,
      params: { id: ids["hand-paused"]! },
      body: { reason: "broken" },
    });
    expect(p.status).toBe(200);
  });

  it("refuses bad input with a 4xx naming the field, and viewers", async () => {
    expect((await act({ action: "pause" })).body.error.fields).toHaveProperty(["reason"]);
    expect((await act({ action: "pause", reason: "x", until: "2020-01-01T00:00:00Z" })).body.error.fields).toHaveProperty(["until"]);
    expect((await act({ action: "pause", reason: "x", tag: "Bad Tag" })).status).toBe(422);
    const unknownTag = await act({ action: "pause", reason: "x", tag: "nothing-has-this" });
    expect(unknownTag.status).toBe(422);
    expect(unknownTag.body.error.fields).toHaveProperty(["tag"]);
    expect((await act({ action: "stop", reason: "x" })).status).toBe(422);
    expect((await act({ action: "pause", reason: "x" }, viewer)).status).toBe(403);
    expect((await act({ action: "resume" })).body.error.code).toBe("not_in_maintenance");
    expect(await pausedNames()).toEqual(["hand-paused"]);
  });

  it("a dry run of a pause lists what it would pause and changes nothing", async () => {
    const res = await act({ action: "pause", reason: "db upgrade", tag: "db", dryRun: true });
    expect(res.status).toBe(200);
    expect(res.body.paused.map((s: { name: string }) => s.name)).toEqual(["db-backup", "db-vacuum"]);
    expect(await pausedNames()).toEqual(["hand-paused"]);
    expect(await windows()).toEqual([]);
    expect(await audit("schedules.maintenance_start")).toHaveLength(0);
  });

  it("pauses every schedule in one action, one audit row per schedule and one for the action; a second pause is refused", async () => {
    const before = (await audit("schedule.pause")).length;
    const res = await act({ action: "pause", reason: "postgres upgrade" });
    expect(res.status).toBe(200);
    expect(res.body.paused.map((s: { name: string }) => s.name)).toEqual(["db-backup", "db-vacuum", "reports"]);
    expect(res.body.skipped).toEqual([expect.objectContaining({ name: "hand-paused", reason: "broken" })]);
    expect(await pausedNames()).toEqual(["db-backup", "db-vacuum", "hand-paused", "reports"]);
    const rows = (await audit("schedule.pause")).slice(before);
    expect(rows).toHaveLength(3);
    for (const r of rows) expect(r.after.maintenanceId).toBe(res.body.maintenanceId);
    const [bulk] = await audit("schedules.maintenance_start");
    expect(bulk.reason).toBe("postgres upgrade");
    expect(bulk.target_id).toBe(res.body.maintenanceId);
    expect(await windows()).toEqual([expect.objectContaining({ tag: null, reason: "postgres upgrade", pausedSchedules: 3 })]);
    expect((await act({ action: "pause", reason: "again" })).body.error.code).toBe("maintenance_active");
  });

  it("resume shows the combined misfire dry run first, then resumes exactly the schedules it paused", async () => {
    // Let fires fall inside the pause (interval 1 s): the misfire policies then have something to decide.
    await waitFor("three fires inside the pause", async () => {
      const { rows } = await getPool().query(
        `SELECT clock_timestamp() - paused_at > interval '3.2 seconds' AS ok FROM schedules WHERE name = 'reports'`,
      );
      return rows[0].ok;
    });
    const dry = await act({ action: "resume", dryRun: true });
    expect(dry.status).toBe(200);
    const by = Object.fromEntries(dry.body.resumed.map((r: { name: string }) => [r.name, r]));
    expect(Object.keys(by).sort()).toEqual(["db-backup", "db-vacuum", "reports"]);
    expect(by["db-backup"]).toMatchObject({ misfirePolicy: "run_once", count: 1 });
    expect(by["db-vacuum"]).toMatchObject({ misfirePolicy: "skip", count: 0 });
    expect(by["reports"]).toMatchObject({ misfirePolicy: "catch_up", count: 2 });
    expect(dry.body.count).toBe(3);
    // Nothing changed.
    expect(await pausedNames()).toEqual(["db-backup", "db-vacuum", "hand-paused", "reports"]);
    expect(await windows()).toHaveLength(1);

    const res = await act({ action: "resume", reason: "upgrade done" });
    expect(res.status).toBe(200);
    expect(res.body.resumed.map((r: { name: string }) => r.name)).toEqual(["db-backup", "db-vacuum", "reports"]);
    expect(await pausedNames()).toEqual(["hand-paused"]);
    expect(await windows()).toEqual([]);
    expect(await audit("schedule.resume")).toHaveLength(3);
    const [end] = await audit("schedules.maintenance_end");
    expect(end.reason).toBe("upgrade done");
  });

  it("a tag's maintenance pauses only that tag and is resumed by its own scope", async () => {
    const res = await act({ action: "pause", reason: "db failover", tag: "db", until: new Date(Date.now() + 3_600_000).toISOString() });
    expect(res.status).toBe(200);
    expect(await pausedNames()).toEqual(["db-backup", "db-vacuum", "hand-paused"]);
    const { rows } = await getPool().query(`SELECT paused_until FROM schedules WHERE name = 'db-backup'`);
    expect(rows[0].paused_until).not.toBeNull();
    expect(await windows()).toEqual([expect.objectContaining({ tag: "db", pausedSchedules: 2 })]);
    expect((await act({ action: "resume" })).body.error.code).toBe("not_in_maintenance");
    expect((await act({ action: "resume", tag: "db" })).status).toBe(200);
    expect(await pausedNames()).toEqual(["hand-paused"]);
  });
});
