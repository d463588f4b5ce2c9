// A concurrency group's start-rate limit through the API: set with a schedule of the group (operator,
// audited), refused with a 4xx naming the field, and a run it holds back shows the wait in the run view
// and the runs list ("waiting: rate limit of bank-api").
import { beforeAll, describe, expect, it } from "vitest";
import { usePoolAndBoss, useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { enqueueRun, insertRun } from "@/test/run-fixtures";
import { getPool, withTransaction } from "@/core/db/pool";
import { jobIdFor } from "@/core/queue/job-id";
import { claimRun } from "@/core/runs/claim/claim-run";
import * as schedules from "./route";
import * as one from "./[id]/route";
import * as runs from "../runs/route";
import * as oneRun from "../runs/[id]/route";

const db = useTestDatabase("start_rate_routes");
const h = usePoolAndBoss(db);
let operator: string;
let viewer: string;

beforeAll(async () => {
  operator = await createTestToken(db.url, "operator");
  viewer = await createTestToken(db.url, "viewer");
});

const base = {
  handler: "demo.noop",
  trigger: { kind: "interval", everySeconds: 3600 },
  overlapPolicy: "allow",
  concurrencyGroup: "bank-api",
};
const post = (body: unknown, token = operator) => callRoute(schedules.POST, { method: "POST", token, body, path: "/api/schedules" });
const patch = (id: string, body: unknown, token = operator) => callRoute(one.PATCH, { method: "PATCH", token, params: { id }, body });
const lastAudit = async (id: string) =>
  (await getPool().query(`SELECT action, before, after FROM audit_events WHERE target_id = $1 ORDER BY id DESC LIMIT 1`, [id])).rows[0];

describe("a group's start-rate limit through the schedules API", () => {
  it("is set with a schedule of the group, shared by the group's schedules, edited and removed with an audit row each", async () => {
    const made = await post({ ...base, name: "bank-payouts", concurrencyLimit: 50, startRateLimit: { maxStarts: 10, perSeconds: 1 } });
    expect(made.status).toBe(200);
    const id = made.body.schedule.id as string;
    expect(made.body.schedule.startRateLimit).toEqual({ maxStarts: 10, perSeconds: 1 });
    expect((await lastAudit(id)).after.startRateLimit).toEqual({ maxStarts: 10, perSeconds: 1 });

    // Another schedule of the group, created without naming a rate, shares (and keeps) the group's.
    const other = await post({ ...base, name: "bank-statements" });
    expect(other.body.schedule.startRateLimit).toEqual({ maxStarts: 10, perSeconds: 1 });

    const edited = await patch(id, { revision: 1, startRateLimit: { maxStarts: 3, perSeconds: 2 } });
    expect(edited.status).toBe(200);
    expect(edited.body.schedule.startRateLimit).toEqual({ maxStarts: 3, perSeconds: 2 });
    const audit = await lastAudit(id);
    expect(audit.action).toBe("schedule.edit");
    expect(audit.before.startRateLimit).toEqual({ maxStarts: 10, perSeconds: 1 });
    expect(audit.after.startRateLimit).toEqual({ maxStarts: 3, perSeconds: 2 });

    // A viewer may not change it.
    const refused = await patch(id, { revision: edited.body.schedule.revision, startRateLimit: null }, viewer);
    expect(refused.status).toBe(403);

    const removed = await patch(id, { revision: edited.body.schedule.revision, startRateLimit: null });
    expect(removed.status).toBe(200);
    expect(removed.body.schedule.startRateLimit).toBeNull();
    expect((await lastAudit(id)).after.startRateLimit).toBeNull();
    const { rows } = await getPool().query(`SELECT max_starts, per_seconds FROM concurrency_groups WHERE name = 'bank-api'`);
    expect(rows[0]).toEqual({ max_starts: null, per_seconds: null });
  });

  const bad: [string, unknown, string][] = [
    ["zero starts", { ...base, name: "bad-a", startRateLimit: { maxStarts: 0, perSeconds: 1 } }, "startRateLimit.maxStarts"],
    ["a window of 0 s", { ...base, name: "bad-b", startRateLimit: { maxStarts: 5, perSeconds: 0 } }, "startRateLimit.perSeconds"],
    ["fractional starts", { ...base, name: "bad-c", startRateLimit: { maxStarts: 2.5, perSeconds: 1 } }, "startRateLimit.maxStarts"],
    ["not an object", { ...base, name: "bad-d", startRateLimit: "10/s" }, "startRateLimit"],
    [
      "without a group",
      { ...base, name: "bad-e", concurrencyGroup: null, startRateLimit: { maxStarts: 5, perSeconds: 1 } },
      "startRateLimit",
    ],
  ];
  for (const [what, body, field] of bad) {
    it(`refuses ${what} with a 422 naming ${field}`, async () => {
      const res = await post(body);
      expect(res.status).toBe(422);
      expect(res.body.error.fields).toHaveProperty([field]);
    });
  }
});

describe("a run held back by the rate limit, as the API shows it", () => {
  it("is queued with wait reason rate_limit, its group, its next try, and the waiting event in its trace", async () => {
    const made = await post({
      ...base,
      name: "rate-held",
      concurrencyGroup: "rate-held",
      concurrencyLimit: 10,
      startRateLimit: { maxStarts: 1, perSeconds: 3600 },
    });
    const scheduleId = made.body.schedule.id as string;
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const id = await insertRun(h.pool, scheduleId, { inMs: -100 + i });
      await enqueueRun(h.pool, h.boss, id);
      ids.push(id);
    }
    const claim = (runId: string) =>
      withTransaction((tx) => claimRun(tx, h.boss, { runId, attempt: 1, jobId: jobIdFor(runId, 1, 0), workerId: "w-api" }), h.pool);
    expect((await claim(ids[0]!)).kind).toBe("start");
    expect(await claim(ids[1]!)).toEqual({ kind: "waiting", reason: "rate_limit" });

    const view = await callRoute(oneRun.GET, { token: viewer, params: { id: ids[1]! } });
    expect(view.status).toBe(200);
    expect(view.body.run).toMatchObject({ state: "queued", waitReason: "rate_limit", concurrencyGroup: "rate-held" });
    expect(Date.parse(view.body.run.nextAttemptAt)).toBeGreaterThan(Date.now() + 3_000_000);
    expect(view.body.events.map((e: { message: string }) => e.message)).toContain("waiting: rate limit of rate-held");

    const list = await callRoute(runs.GET, { token: viewer, path: `/api/runs?scheduleId=${scheduleId}` });
    const row = list.body.runs.find((r: { id: string }) => r.id === ids[1]);
    expect(row).toMatchObject({ state: "queued", waitReason: "rate_limit", concurrencyGroup: "rate-held" });
  });
});
