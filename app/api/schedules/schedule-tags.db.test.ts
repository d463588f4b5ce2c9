import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { insertRunRow } from "@/test/alert-fixtures";
import { getPool } from "@/core/db/pool";
import * as schedules from "./route";
import * as one from "./[id]/route";
import * as runs from "../runs/route";
import * as alerts from "../alerts/route";

const db = useTestDatabase("schedule_tags");
let operator: string;
let viewer: string;

beforeAll(async () => {
  operator = await createTestToken(db.url, "operator");
  viewer = await createTestToken(db.url, "viewer");
});

const base = { handler: "demo.noop", payload: {}, trigger: { kind: "interval", everySeconds: 3600 } };
const create = (name: string, tags?: unknown) =>
  callRoute(schedules.POST, {
    method: "POST",
    token: operator,
    path: "/api/schedules",
    body: { ...base, name, ...(tags === undefined ? {} : { tags }) },
  });
const names = (list: { name: string }[]) => list.map((s) => s.name).sort();

describe("schedule tags", () => {
  it("are stored deduplicated and sorted, default to none, and are audited on create", async () => {
    const made = await create("tagged-a", ["team:payments", "nightly", "team:payments"]);
    expect(made.status).toBe(200);
    expect(made.body.schedule.tags).toEqual(["nightly", "team:payments"]);
    expect((await create("untagged")).body.schedule.tags).toEqual([]);
    const { rows } = await getPool().query(`SELECT after FROM audit_events WHERE action = 'schedule.create' AND target_id = $1`, [
      made.body.schedule.id,
    ]);
    expect(rows[0].after.tags).toEqual(["nightly", "team:payments"]);
  });

  it("refuse a bad tag with a 422 naming which one, and more than 20", async () => {
    const bad = await create("bad-tags", ["ok", "Has Space"]);
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields).toHaveProperty(["tags.1"]);
    expect(bad.body.error.fields["tags.1"]).toMatch(/Has Space/);
    const many = await create(
      "many-tags",
      Array.from({ length: 21 }, (_, i) => `t${i}`),
    );
    expect(many.status).toBe(422);
    expect(many.body.error.fields).toHaveProperty(["tags"]);
    const notList = await create("not-list", "a,b");
    expect(notList.status).toBe(422);
  });

  it("are edited with the revision and the edit is audited field by field", async () => {
    const made = (await create("tag-edit", ["a"])).body.schedule;
    const res = await callRoute(one.PATCH, {
      method: "PATCH",
      token: operator,
      params: { id: made.id },
      body: { tags: ["b", "a"], revision: made.revision },
    });
    expect(res.status).toBe(200);
    expect(res.body.schedule.tags).toEqual(["a", "b"]);
    expect(res.body.schedule.revision).toBe(made.revision + 1);
    const { rows } = await getPool().query(`SELECT before, after FROM audit_events WHERE action = 'schedule.edit' AND target_id = $1`, [
      made.id,
    ]);
    expect(rows[0].before.tags).toEqual(["a"]);
    expect(rows[0].after.tags).toEqual(["a", "b"]);
    // The same set in another order is no change: no new revision.
    const same = await callRoute(one.PATCH, {
      method: "PATCH",
      token: operator,
      params: { id: made.id },
      body: { tags: ["b", "a", "b"], revision: res.body.schedule.revision },
    });
    expect(same.body.schedule.revision).toBe(res.body.schedule.revision);
  });

  it("filter the schedules, runs and alerts lists (repeated tag = schedules having all)", async () => {
    const x = (await create("filter-x", ["env.prod", "team:ops"])).body.schedule;
    const y = (await create("filter-y", ["env.prod"])).body.schedule;
    await create("filter-z", ["team:ops"]);
    const list = async (qs: string, token = viewer) => callRoute(schedules.GET, { token, path: `/api/schedules${qs}` });
    expect(names((await list("?tag=env.prod")).body.schedules)).toEqual(["filter-x", "filter-y"]);
    expect(names((await list("?tag=env.prod&tag=team:ops")).body.schedules)).toEqual(["filter-x"]);
    expect(names((await list("?tag=env.prod,team:ops")).body.schedules)).toEqual(["filter-x"]);
    expect((await list("?tag=nobody")).body.schedules).toEqual([]);
    const bad = await list("?tag=UPPER");
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields).toBeTruthy();

    const rx = await insertRunRow(getPool(), x.id, { state: "failed", plannedAgoMs: 60_000, startedAgoMs: 59_000, finishedAgoMs: 58_000 });
    await insertRunRow(getPool(), y.id, { state: "failed", plannedAgoMs: 60_000, startedAgoMs: 59_000, finishedAgoMs: 58_000 });
    const runList = await callRoute(runs.GET, { token: viewer, path: "/api/runs?tag=team:ops&tag=env.prod" });
    expect(runList.status).toBe(200);
    expect(runList.body.runs.map((r: { id: string }) => r.id)).toEqual([rx]);
    expect((await callRoute(runs.GET, { token: viewer, path: "/api/runs?tag=env.prod" })).body.runs).toHaveLength(2);

    for (const s of [x, y]) {
      await getPool().query(
        `INSERT INTO alerts (kind, schedule_id, dedupe_key, severity, message, data, last_cause_at)
         VALUES ('missed', $1::uuid, 'missed:' || $1::text, 'critical', 'never started', '{}', now())`,
        [s.id],
      );
    }
    const alertList = await callRoute(alerts.GET, { token: viewer, path: "/api/alerts?tag=team:ops" });
    expect(alertList.status).toBe(200);
    expect(alertList.body.alerts.map((a: { scheduleId: string }) => a.scheduleId)).toEqual([x.id]);
  });
});
