import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { dbNow, getPool } from "@/core/db/pool";
import { planDueSchedules } from "@/core/runs/plan/plan-due-schedules";
import * as schedules from "./route";
import * as one from "./[id]/route";
import * as preview from "./preview/route";
import * as pause from "./[id]/pause/route";
import * as resume from "./[id]/resume/route";
import * as trigger from "./[id]/trigger/route";
import * as backfill from "./[id]/backfill/route";
import * as runs from "../runs/route";
import * as timeline from "../timeline/route";
import * as handlers from "../handlers/route";

const db = useTestDatabase("schedule_routes");
let operator: string;
let viewer: string;

beforeAll(async () => {
  operator = await createTestToken(db.url, "operator");
  viewer = await createTestToken(db.url, "viewer");
});

const valid = {
  name: "api-made",
  handler: "ledger.post",
  payload: { from: "a", to: "b", amount: 3 },
  trigger: { kind: "interval", everySeconds: 30 },
};
const post = (body: unknown, token = operator) => callRoute(schedules.POST, { method: "POST", token, body, path: "/api/schedules" });
const count = async (table: string) => (await getPool().query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n;

describe("POST /api/schedules refuses bad input with a 4xx naming the field, storing nothing", () => {
  const cases: [string, unknown, number, string][] = [
    ["invalid cron", { ...valid, trigger: { kind: "cron", cron: "61 * * * *", timezone: "UTC" } }, 422, "trigger.cron"],
    ["cron with too few fields", { ...valid, trigger: { kind: "cron", cron: "* * *", timezone: "UTC" } }, 422, "trigger.cron"],
    ["unknown time zone", { ...valid, trigger: { kind: "cron", cron: "0 9 * * *", timezone: "Mars/Olympus" } }, 422, "trigger.timezone"],
    ["interval of 0", { ...valid, trigger: { kind: "interval", everySeconds: 0 } }, 422, "trigger.everySeconds"],
    ["negative interval", { ...valid, trigger: { kind: "interval", everySeconds: -5 } }, 422, "trigger.everySeconds"],
    ["one-off in the past", { ...valid, trigger: { kind: "once", at: "2020-01-01T00:00:00Z" } }, 422, "trigger.at"],
    ["unknown handler", { ...valid, handler: "nope.nothing" }, 422, "handler"],
    ["payload failing the handler's schema", { ...valid, payload: { from: "a", to: "b", amount: -1 } }, 422, "payload.amount"],
    ["payload over 64 KiB", { ...valid, handler: "demo.noop", payload: { blob: "x".repeat(70 * 1024) } }, 422, "payload"],
    ["bad name", { ...valid, name: "Has Spaces" }, 422, "name"],
    ["retry max below base", { ...valid, retryBaseSeconds: 10, retryMaxSeconds: 5 }, 422, "retryMaxSeconds"],
    ["unknown webhook format", { ...valid, webhookUrl: "https://hooks.example.com/x", webhookFormat: "teams" }, 422, "webhookFormat"],
    ["negative failure alert threshold", { ...valid, failureAlertThreshold: -1 }, 422, "failureAlertThreshold"],
    ["failure alert threshold over 1000", { ...valid, failureAlertThreshold: 1001 }, 422, "failureAlertThreshold"],
    ["fractional failure alert threshold", { ...valid, failureAlertThreshold: 2.5 }, 422, "failureAlertThreshold"],
    ["failure alert threshold as text", { ...valid, failureAlertThreshold: "3" }, 422, "failureAlertThreshold"],
  ];
  for (const [what, body, status, field] of cases) {
    it(what, async () => {
      const before = [await count("schedules"), await count("audit_events")];
      const res = await post(body);
      expect(res.status).toBe(status);
      expect(res.body.error.code).toBeTruthy();
      expect(res.body.error.message).toBeTruthy();
      expect(res.body.error.fields).toHaveProperty([field]);
      expect([await count("schedules"), await count("audit_events")]).toEqual(before);
    });
  }

  it("a body over the request limit answers 413", async () => {
    const res = await post({ ...valid, payload: { blob: "x".repeat(300 * 1024) } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("payload_too_large");
    expect(await count("schedules")).toBe(0);
  });

  it("a viewer may not create", async () => {
    expect((await post(valid, viewer)).status).toBe(403);
    expect(await count("schedules")).toBe(0);
  });
});

describe("a schedule's webhook format", () => {
  it("defaults to Vigil's JSON, can be set to Slack-style text on create and edit, and is audited", async () => {
    const made = await post({ ...valid, name: "format-default" });
    expect(made.status).toBe(200);
    expect(made.body.schedule.webhookFormat).toBe("vigil");
    const slack = await post({ ...valid, name: "format-slack", webhookUrl: "https://hooks.example.com/x", webhookFormat: "slack" });
    expect(slack.body.schedule.webhookFormat).toBe("slack");
    const id = made.body.schedule.id as string;
    const edited = await callRoute(one.PATCH, {
      method: "PATCH",
      token: operator,
      params: { id },
      body: { revision: 1, webhookFormat: "slack" },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.schedule.webhookFormat).toBe("slack");
    const { rows } = await getPool().query(
      `SELECT after->>'webhookFormat' AS f FROM audit_events WHERE target_id = $1 ORDER BY id DESC LIMIT 1`,
      [id],
    );
    expect(rows[0].f).toBe("slack");
    await getPool().query(`DELETE FROM schedules WHERE name LIKE 'format-%'`);
  });
});

describe("a schedule's failure alert threshold", () => {
  it("is null (the global default) unless set; 0 turns failure alerts off for it; a bad value says what is allowed", async () => {
    const made = await post({ ...valid, name: "failures-default" });
    expect(made.status).toBe(200);
    expect(made.body.schedule.failureAlertThreshold).toBeNull();
    const off = await post({ ...valid, name: "failures-off", failureAlertThreshold: 0 });
    expect(off.status).toBe(200);
    expect(off.body.schedule.failureAlertThreshold).toBe(0);
    const id = made.body.schedule.id as string;
    const patch = (body: unknown) => callRoute(one.PATCH, { method: "PATCH", token: operator, params: { id }, body });
    const five = await patch({ revision: 1, failureAlertThreshold: 5 });
    expect(five.status).toBe(200);
    expect(five.body.schedule.failureAlertThreshold).toBe(5);
    const back = await patch({ revision: 2, failureAlertThreshold: null });
    expect(back.status).toBe(200);
    expect(back.body.schedule.failureAlertThreshold).toBeNull();
    const bad = await patch({ revision: 3, failureAlertThreshold: -2 });
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields.failureAlertThreshold).toBe(
      "Failure alert threshold must be 0 (no failure alerts for this schedule) to 1000, or null for the global default (VIGIL_ALERT_FAILURE_THRESHOLD); got -2",
    );
    // The database refuses what the API refuses, for writers that bypass it.
    await expect(getPool().query(`UPDATE schedules SET failure_alert_threshold = -1 WHERE id = $1`, [id])).rejects.toThrow(
      /schedules_failure_alert_threshold/,
    );
    await getPool().query(`DELETE FROM schedules WHERE name LIKE 'failures-%'`);
  });
});

describe("schedules API", () => {
  let id: string;

  it("creates, reads, lists and edits with revision", async () => {
    const created = await post(valid);
    expect(created.status).toBe(200);
    id = created.body.schedule.id;
    expect(created.body.schedule).toMatchObject({ name: "api-made", revision: 1, paused: null });
    const read = await callRoute(one.GET, { token: viewer, params: { id } });
    expect(read.body.schedule).toMatchObject({ id, counts24h: { late: 0, missed: 0, hollow: 0, failed: 0 } });
    const list = await callRoute(schedules.GET, { token: viewer, path: "/api/schedules?q=api" });
    expect(list.body.schedules.map((s: { id: string }) => s.id)).toEqual([id]);
    const edited = await callRoute(one.PATCH, {
      method: "PATCH",
      token: operator,
      params: { id },
      body: { revision: 1, description: "from the API" },
    });
    expect(edited.body.schedule).toMatchObject({ revision: 2, description: "from the API" });
    const stale = await callRoute(one.PATCH, {
      method: "PATCH",
      token: operator,
      params: { id },
      body: { revision: 1, description: "lost" },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("stale_revision");
    expect((await callRoute(one.GET, { token: viewer, params: { id: "not-a-uuid" } })).status).toBe(404);
  });

  it("pauses and resumes through an edit of `enabled`", async () => {
    const off = await callRoute(one.PATCH, { method: "PATCH", token: operator, params: { id }, body: { revision: 2, enabled: false } });
    expect(off.body.schedule).toMatchObject({ enabled: false, revision: 2, paused: { reason: "disabled in an edit" } });
    const on = await callRoute(one.PATCH, { method: "PATCH", token: operator, params: { id }, body: { revision: 2, enabled: true } });
    expect(on.body.schedule).toMatchObject({ enabled: true, paused: null });
  });

  it("previews fire times with DST flags", async () => {
    const res = await callRoute(preview.POST, {
      method: "POST",
      token: viewer,
      body: { trigger: { kind: "cron", cron: "30 2 * * *", timezone: "America/New_York" }, count: 3, from: "2026-03-07T00:00:00Z" },
    });
    expect(res.status).toBe(200);
    expect(res.body.fires.map((f: { at: string }) => f.at)).toEqual([
      "2026-03-07T07:30:00.000Z",
      "2026-03-08T07:00:00.000Z",
      "2026-03-09T06:30:00.000Z",
    ]);
    expect(res.body.fires[1].dst.kind).toBe("gap");
    const bad = await callRoute(preview.POST, { method: "POST", token: viewer, body: { trigger: { kind: "interval", everySeconds: 0 } } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields).toHaveProperty(["trigger.everySeconds"]);
  });

  it("pauses, previews a resume, resumes, triggers and backfills, with dry runs that change nothing", async () => {
    const p = (route: typeof pause.POST, body: unknown) => callRoute(route, { method: "POST", token: operator, params: { id }, body });
    expect((await p(pause.POST, {})).status).toBe(422); // a reason is required
    expect((await p(pause.POST, { reason: "maintenance" })).body).toMatchObject({ dryRun: false, count: 0 });
    expect((await p(pause.POST, { reason: "again" })).body.error.code).toBe("already_paused");
    const dry = await p(resume.POST, { dryRun: true });
    expect(dry.body).toMatchObject({ dryRun: true, misfirePolicy: "run_once" });
    expect((await callRoute(one.GET, { token: viewer, params: { id } })).body.schedule.paused).not.toBeNull();
    expect((await p(resume.POST, {})).body.dryRun).toBe(false);
    expect((await callRoute(one.GET, { token: viewer, params: { id } })).body.schedule.paused).toBeNull();

    const before = await count("runs");
    expect((await p(trigger.POST, { dryRun: true, reason: "check" })).body).toMatchObject({ count: 1, runId: null });
    expect(await count("runs")).toBe(before);
    const t = await p(trigger.POST, { reason: "check" });
    expect(t.body.runId).toMatch(/^[0-9a-f-]{36}$/);
    const { rows } = await getPool().query(`SELECT kind, state, idempotency_key FROM runs WHERE id = $1`, [t.body.runId]);
    // Enqueued by the request itself (no planner hop): queued, its job waiting for a worker.
    expect(rows[0]).toEqual({ kind: "manual", state: "queued", idempotency_key: `manual:${id}:${t.body.runId}` });

    // An hour a day ago: 120 fires every 30 s, before the schedule existed (the interval grid extends backwards).
    const hour = Math.floor((await dbNow()).getTime() / 3_600_000) * 3_600_000 - 86_400_000;
    const range = { from: new Date(hour).toISOString(), to: new Date(hour + 3_600_000).toISOString() };
    const bdry = await p(backfill.POST, { ...range, dryRun: true });
    expect(bdry.body).toMatchObject({ dryRun: true, count: 120, fires: 120 });
    expect(await count("runs")).toBe(before + 1);
    expect((await p(backfill.POST, range)).body).toMatchObject({ dryRun: false, count: 120 });
    expect((await p(backfill.POST, range)).body).toMatchObject({ count: 0, alreadyCovered: 120 });
    const big = await p(backfill.POST, { from: new Date(hour - 200 * 86_400_000).toISOString(), to: range.from });
    expect(big.status).toBe(422);
    expect(big.body.error.code).toBe("backfill_too_large");
    const future = await p(backfill.POST, { from: range.from, to: "2099-01-01T00:00:00Z" });
    expect(future.body.error.fields).toHaveProperty("to");

    const audit = await getPool().query(`SELECT action FROM audit_events WHERE target_id = $1 ORDER BY id`, [id]);
    expect(audit.rows.map((r) => r.action)).toEqual([
      "schedule.create",
      "schedule.edit",
      "schedule.pause",
      "schedule.resume",
      "schedule.pause",
      "schedule.resume",
      "schedule.trigger",
      "schedule.backfill",
      "schedule.backfill",
    ]);
  });

  it("lists runs newest first with keyset pagination, and the timeline compactly", async () => {
    await planDueSchedules(getPool(), { horizonSeconds: 120 });
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page++) {
      const res: { status: number; body: { runs: { id: string; plannedAt: string }[]; nextCursor: string | null } } = await callRoute(
        runs.GET,
        {
          token: viewer,
          path: `/api/runs?scheduleId=${id}&state=planned&limit=50${cursor ? `&cursor=${cursor}` : ""}`,
        },
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.runs.map((r) => r.id));
      cursor = res.body.nextCursor;
      if (!cursor) break;
    }
    const { rows } = await getPool().query(
      `SELECT id FROM runs WHERE schedule_id = $1 AND state = 'planned' ORDER BY planned_at DESC, id DESC`,
      [id],
    );
    expect(seen).toEqual(rows.map((r) => r.id));
    // Without a state filter, running and zombie runs come first however old, then the rest newest first.
    const old = new Date(Date.now() - 30 * 86_400_000).toISOString();
    const { rows: made } = await getPool().query(
      `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds)
       VALUES ($1, 'manual', $2, $2, 'z1', 'zombie', 'ledger.post', 5, 1), ($1, 'manual', $2, $2, 'r1', 'running', 'ledger.post', 5, 1),
              ($1, 'manual', clock_timestamp(), clock_timestamp(), 'f1', 'failed', 'ledger.post', 5, 1)
       RETURNING id, state`,
      [id, old],
    );
    const first = await callRoute(runs.GET, { token: viewer, path: `/api/runs?scheduleId=${id}&limit=3` });
    expect(
      first.body.runs
        .slice(0, 2)
        .map((r: { state: string }) => r.state)
        .sort(),
    ).toEqual(["running", "zombie"]);
    expect(first.body.runs[2].id).toBe(made.find((r) => r.state === "failed").id);
    expect(first.body.runs.some((r: { state: string }) => r.state === "planned")).toBe(false); // future occurrences left out
    expect((await callRoute(runs.GET, { token: viewer, path: "/api/runs?state=nonsense" })).status).toBe(400);
    expect((await callRoute(runs.GET, { token: viewer, path: "/api/runs?cursor=garbage" })).status).toBe(400);

    const { rows: bf } = await getPool().query(`SELECT min(planned_at) AS first FROM runs WHERE schedule_id = $1 AND kind = 'backfill'`, [
      id,
    ]);
    const from = bf[0].first as Date;
    const to = new Date(from.getTime() + 2 * 3_600_000);
    const tl = await callRoute(timeline.GET, { token: viewer, path: `/api/timeline?from=${from.toISOString()}&to=${to.toISOString()}` });
    expect(tl.status).toBe(200);
    expect(tl.body.schedules).toEqual([{ id, name: "api-made", paused: false }]);
    expect(tl.body.runs).toHaveLength(120);
    const [si, planned, state, kind] = tl.body.runs[0];
    expect([si, planned, tl.body.states[state], tl.body.kinds[kind]]).toEqual([0, 0, "planned", "backfill"]);
  });

  it("lists handlers with payload JSON schemas", async () => {
    const res = await callRoute(handlers.GET, { token: viewer });
    expect(res.body.handlers.find((h: { name: string }) => h.name === "ledger.post").payloadSchema).toMatchObject({ type: "object" });
  });

  it("deletes with the revision", async () => {
    const stale = await callRoute(one.DELETE, {
      method: "DELETE",
      token: operator,
      params: { id },
      path: `/api/schedules/${id}?revision=1`,
    });
    expect(stale.status).toBe(409);
    const res = await callRoute(one.DELETE, { method: "DELETE", token: operator, params: { id }, path: `/api/schedules/${id}?revision=2` });
    expect(res.status).toBe(200);
    expect((await callRoute(one.GET, { token: viewer, params: { id } })).status).toBe(404);
  });
});
