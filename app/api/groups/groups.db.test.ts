import { beforeAll, describe, expect, it } from "vitest";
import { usePoolAndBoss, useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { enqueueRun, insertRun, insertSchedule, runState } from "@/test/run-fixtures";
import { withTransaction } from "@/core/db/pool";
import { jobIdFor } from "@/core/queue/job-id";
import { claimRun, type ClaimResult } from "@/core/runs/claim/claim-run";
import { sweepSchedule } from "@/core/runs/plan/mark-missed-runs";
import { getRunTrace } from "@/core/runs/read/get-run";
import { upsertConcurrencyGroup } from "@/core/schedules/create-schedule";
import * as groupsRoute from "./route";
import * as groupRoute from "./[name]/route";

const db = useTestDatabase("group_limits");
const h = usePoolAndBoss(db);
let operator: string;
let viewer: string;

beforeAll(async () => {
  operator = await createTestToken(db.url, "operator");
  viewer = await createTestToken(db.url, "viewer");
});

const claim = (runId: string, wake = 0): Promise<ClaimResult> =>
  withTransaction((tx) => claimRun(tx, h.boss, { runId, attempt: 1, jobId: jobIdFor(runId, 1, wake), workerId: "w-test" }), h.pool);

/** A schedule in a group (high concurrency limit, no rate limit yet) with n queued runs, oldest first. */
async function groupWithRuns(group: string, n: number, startingDeadlineSeconds = 600) {
  const s = await insertSchedule(h.pool, { handler: "demo.noop", concurrencyGroup: group, startingDeadlineSeconds });
  await h.pool.query(`UPDATE concurrency_groups SET max_running = 100 WHERE name = $1`, [group]);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = await insertRun(h.pool, s, { inMs: -1000 + i });
    await enqueueRun(h.pool, h.boss, id);
    ids.push(id);
  }
  return { scheduleId: s, ids };
}

const patch = (name: string, body: unknown, token = operator) =>
  callRoute(groupRoute.PATCH, { method: "PATCH", token, path: `/api/groups/${name}`, params: { name }, body });
const listed = async (name: string) =>
  (await callRoute(groupsRoute.GET, { token: viewer, path: "/api/groups" })).body.groups.find((g: { name: string }) => g.name === name);

describe("a start-rate limit set on a group that already started runs", () => {
  it("counts the starts already made in its window (set with a schedule's edit)", async () => {
    const { ids } = await groupWithRuns("late-limit", 3);
    const [a, b, c] = ids as [string, string, string];
    expect((await claim(a)).kind).toBe("start");
    expect((await claim(b)).kind).toBe("start");
    // Now the operator limits the group to 2 starts a minute: a and b already used the window.
    await withTransaction((tx) => upsertConcurrencyGroup(tx, "late-limit", undefined, { maxStarts: 2, perSeconds: 60 }), h.pool);
    expect(await claim(c)).toEqual({ kind: "waiting", reason: "rate_limit" });
  });

  it("counts them when set from the Groups view too, which lists the group's running, window and waiting", async () => {
    const { ids } = await groupWithRuns("groups-view", 3);
    const [a, b, c] = ids as [string, string, string];
    expect((await claim(a)).kind).toBe("start");
    expect((await claim(b)).kind).toBe("start");
    expect(await listed("groups-view")).toMatchObject({ concurrencyLimit: 100, startRateLimit: null, running: 2, startsInWindow: null });

    const res = await patch("groups-view", { startRateLimit: { maxStarts: 2, perSeconds: 60 }, concurrencyLimit: 5, reason: "bank asked" });
    expect(res.status).toBe(200);
    expect(res.body.group).toMatchObject({ startRateLimit: { maxStarts: 2, perSeconds: 60 }, concurrencyLimit: 5, startsInWindow: 2 });
    expect(await claim(c)).toEqual({ kind: "waiting", reason: "rate_limit" });
    expect(await listed("groups-view")).toMatchObject({
      running: 2,
      startsInWindow: 2,
      waitingForRate: 1,
      waitingForSlot: 0,
      schedules: 1,
    });

    const { rows } = await h.pool.query(`SELECT * FROM audit_events WHERE action = 'group.limits_change' AND target_id = 'groups-view'`);
    expect(rows).toHaveLength(1);
    expect(rows[0].before).toEqual({ concurrencyLimit: 100, startRateLimit: null });
    expect(rows[0].after).toEqual({ concurrencyLimit: 5, startRateLimit: { maxStarts: 2, perSeconds: 60 } });
    expect(rows[0].reason).toBe("bank asked");

    // Removing the limit (null) keeps the concurrency limit and forgets the window.
    const removed = await patch("groups-view", { startRateLimit: null });
    expect(removed.body.group).toMatchObject({ startRateLimit: null, concurrencyLimit: 5, startsInWindow: null });
  });

  it("refuses bad input with a 4xx JSON naming the field, viewers with 403, and an unknown group with 404", async () => {
    await groupWithRuns("bad-input", 0);
    const bad = await patch("bad-input", { startRateLimit: { maxStarts: 0, perSeconds: 60 } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields).toHaveProperty(["startRateLimit.maxStarts"]);
    expect((await patch("bad-input", { concurrencyLimit: "many" })).body.error.fields).toHaveProperty(["concurrencyLimit"]);
    expect((await patch("bad-input", {})).status).toBe(422);
    expect((await patch("bad-input", { concurrencyLimit: 2, extra: 1 })).status).toBe(422);
    expect((await patch("bad-input", { concurrencyLimit: 2 }, viewer)).status).toBe(403);
    const unknown = await patch("no-such-group", { concurrencyLimit: 2 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not_found");
  });
});

describe("a run waiting for the rate limit that is then marked missed", () => {
  /** Two runs of a group allowed 1 start an hour: the first starts, the second waits; then it falls past its deadline. */
  async function runWaitingPastDeadline(group: string) {
    const { scheduleId, ids } = await groupWithRuns(group, 2, 1);
    await h.pool.query(`UPDATE concurrency_groups SET max_starts = 1, per_seconds = 3600 WHERE name = $1`, [group]);
    const [a, b] = ids as [string, string];
    await h.pool.query(`UPDATE runs SET due_at = clock_timestamp() WHERE id = ANY($1::uuid[])`, [ids]);
    expect((await claim(a)).kind).toBe("start");
    expect(await claim(b)).toEqual({ kind: "waiting", reason: "rate_limit" });
    expect((await runState(h.pool, b)).next_attempt_at).not.toBeNull();
    await h.pool.query(`UPDATE runs SET due_at = clock_timestamp() - interval '5 s' WHERE id = $1`, [b]);
    return { scheduleId, waiting: b };
  }

  it("keeps no next-attempt time (the run page shows no stale 'next attempt')", async () => {
    const { scheduleId, waiting: b } = await runWaitingPastDeadline("stale-wait");
    await withTransaction((tx) => sweepSchedule(tx, scheduleId, h.boss), h.pool);
    expect(await runState(h.pool, b)).toMatchObject({ state: "missed", next_attempt_at: null });
    expect((await getRunTrace(h.pool, b)).run.nextAttemptAt).toBeNull();
  });

  it("keeps none either when the claim itself finds it past its starting deadline", async () => {
    const { waiting: b } = await runWaitingPastDeadline("stale-wait-claim");
    expect(await claim(b)).toEqual({ kind: "missed" });
    expect(await runState(h.pool, b)).toMatchObject({ state: "missed", next_attempt_at: null });
  });
});
