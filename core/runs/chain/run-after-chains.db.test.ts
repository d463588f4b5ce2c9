// Run-after chains end to end on the real planner functions: the planner writes a downstream occurrence waiting for
// its upstream, the chain sweep (release-chained-runs.ts) decides it by condition and mapping, releases go through
// the planner's enqueue, the wait deadline misses it with the reason and the missed alert says so, cycles are refused,
// three planners racing decide each occurrence once, and a re-run of an upstream can re-run its downstream.
// Upstream outcomes are written as the finish path leaves them (state), since the finish path is not what is tested.
import crypto from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { usePoolAndBoss, useTestDatabase } from "../../../test/db";
import { systemActor } from "../../auth/roles";
import { createSchedule } from "../../schedules/create-schedule";
import { updateSchedule } from "../../schedules/update-schedule";
import { deleteSchedule } from "../../schedules/delete-schedule";
import { getScheduleOrThrow } from "../../schedules/schedule-record";
import { evaluateAlerts } from "../../alerts/evaluate-alerts";
import { enqueueDueRuns } from "../plan/enqueue-due-runs";
import { planDueSchedules } from "../plan/plan-due-schedules";
import { runPlannerTick } from "../plan/plan-tick";
import { previewRerun, rerunRun } from "../operate/rerun-run";
import { releaseChainedRuns } from "./release-chained-runs";
import { applySchedules } from "../../schedules/as-code/apply-schedules";
import { exportSchedules } from "../../schedules/as-code/export-schedules";
import { getRunChain } from "./chain-occurrences";

const db = useTestDatabase("run_after_chains");
const h = usePoolAndBoss(db);
const actor = systemActor("chain-test");
const FAR = { kind: "once", at: "2099-01-01T00:00:00Z" };

const uniq = (p: string) => `${p}-${crypto.randomBytes(4).toString("hex")}`;

async function schedule(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const id = (await createSchedule({ name, handler: "demo.noop", trigger: FAR, ...extra }, actor)).id;
  // Its hand-written occurrences count as planned: the enqueue takes a scheduled run once planning has passed now.
  if (!extra.trigger) await h.pool.query(`UPDATE schedules SET planned_through = now() + interval '1 day' WHERE id = $1`, [id]);
  return id;
}

/** A scheduled occurrence at `plannedAt`, due `dueInMs` from now on the database clock. */
async function occurrence(scheduleId: string, plannedAt: string, state = "planned", opts: { dueInMs?: number; waiting?: boolean } = {}) {
  const { rows } = await h.pool.query<{ id: string }>(
    `INSERT INTO runs (schedule_id, kind, planned_at, nominal_at, due_at, idempotency_key, state, wait_reason, handler, payload,
                       timeout_seconds, grace_seconds, max_attempts)
     SELECT s.id, 'scheduled', $2::timestamptz, $2::timestamptz, clock_timestamp() + make_interval(secs => $4::float8 / 1000), s.id || ':' || $6, $3,
            CASE WHEN $5 THEN 'upstream' END, s.handler, s.payload, s.timeout_seconds, s.grace_seconds, s.retry_max_attempts
       FROM schedules s WHERE s.id = $1 RETURNING id`,
    [scheduleId, plannedAt, state, opts.dueInMs ?? 0, opts.waiting ?? state === "planned", plannedAt],
  );
  return rows[0]!.id;
}

async function setState(runId: string, state: string) {
  await h.pool.query(`UPDATE runs SET state = $2 WHERE id = $1`, [runId, state]);
}

async function runOf(id: string) {
  const { rows } = await h.pool.query<{ state: string; wait_reason: string | null; attempt: number }>(
    `SELECT state, wait_reason, attempt FROM runs WHERE id = $1`,
    [id],
  );
  return rows[0]!;
}

async function lastEvent(id: string) {
  const { rows } = await h.pool.query<{ type: string; message: string }>(
    `SELECT type, message FROM run_events WHERE run_id = $1 ORDER BY at DESC, id DESC LIMIT 1`,
    [id],
  );
  return rows[0]!;
}

const T0 = "2026-06-16T01:00:00.000Z";

describe("run-after chains", () => {
  it("each condition: succeeded, finished and failed accept what they say and exclude the rest with the reason", async () => {
    const expected: Record<string, Record<string, string>> = {
      succeeded: { succeeded: "released", finished: "released", failed: "excluded" },
      failed: { succeeded: "excluded", finished: "released", failed: "released" },
      cancelled: { succeeded: "excluded", finished: "excluded", failed: "excluded" },
    };
    for (const [outcome, byCondition] of Object.entries(expected)) {
      const a = uniq(`up-${outcome}`);
      const aId = await schedule(a);
      const aRun = await occurrence(aId, T0, "running");
      const downs: Record<string, string> = {};
      for (const condition of Object.keys(byCondition)) {
        const b = await schedule(uniq(`down-${condition}`), { after: [{ schedule: a, condition }] });
        downs[condition] = await occurrence(b, T0);
      }
      // While the upstream runs, nothing is decided.
      await releaseChainedRuns(h.pool);
      for (const id of Object.values(downs)) expect(await runOf(id)).toMatchObject({ state: "planned", wait_reason: "upstream" });
      await setState(aRun, outcome);
      await releaseChainedRuns(h.pool);
      for (const [condition, verdict] of Object.entries(byCondition)) {
        const r = await runOf(downs[condition]!);
        if (verdict === "released") {
          expect(r, `${outcome} / ${condition}`).toMatchObject({ state: "planned", wait_reason: null });
          expect((await lastEvent(downs[condition]!)).message).toContain(`released: ${a} ${outcome}`);
        } else {
          expect(r.state, `${outcome} / ${condition}`).toBe("excluded");
          expect((await lastEvent(downs[condition]!)).message).toBe(
            `excluded: ${a}'s occurrence of 2026-06-16 01:00:00 UTC ended ${outcome}, and this schedule runs after it ${condition}`,
          );
        }
      }
    }
  });

  it("each mapping: same planned time, latest before, and same calendar day in a zone pick different upstream occurrences", async () => {
    // B at 01:00Z on the 16th: 21:00 on the 15th in New York, 10:00 on the 16th in Tokyo.
    const a = uniq("up-map");
    const aId = await schedule(a);
    await occurrence(aId, "2026-06-15T20:00:00.000Z", "succeeded"); // NY 15th 16:00, Tokyo 16th 05:00
    await occurrence(aId, "2026-06-16T05:00:00.000Z", "failed"); // NY 16th 01:00, Tokyo 16th 14:00
    const mk = async (mapping: string, mappingTimezone?: string) =>
      occurrence(
        await schedule(uniq(`down-${mapping}`), { after: [{ schedule: a, mapping, mappingTimezone }], waitDeadlineSeconds: 60 }),
        T0,
      );
    const sameTime = await mk("same_time");
    const latestBefore = await mk("latest_before");
    const sameDayNy = await mk("same_day", "America/New_York");
    const sameDayTokyo = await mk("same_day", "Asia/Tokyo");
    await releaseChainedRuns(h.pool);
    expect((await runOf(latestBefore)).state).toBe("planned");
    expect((await runOf(latestBefore)).wait_reason).toBeNull(); // 20:00Z, the latest at or before, succeeded
    expect((await runOf(sameDayNy)).wait_reason).toBeNull(); // the 15th in New York: 20:00Z
    expect((await runOf(sameDayTokyo)).state).toBe("excluded"); // the 16th in Tokyo: the latest is 05:00Z, failed
    expect((await lastEvent(sameDayTokyo)).message).toContain("occurrence of 2026-06-16 05:00:00 UTC ended failed");
    expect(await runOf(sameTime)).toMatchObject({ state: "planned", wait_reason: "upstream" }); // none at 01:00Z yet
    const chain = await getRunChain(h.pool, sameDayTokyo);
    expect(chain.upstream).toEqual([
      expect.objectContaining({ scheduleName: a, mapping: "same_day", mappingTimezone: "Asia/Tokyo", verdict: "impossible" }),
    ]);
  });

  it("a manual run of the upstream (trigger now) feeds latest-before, not same-time", async () => {
    const a = uniq("up-manual");
    const aId = await schedule(a);
    const { rows } = await h.pool.query<{ id: string }>(
      `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, payload, timeout_seconds, grace_seconds, max_attempts)
       SELECT s.id, 'manual', '2026-06-16T00:55:00Z', '2026-06-16T00:55:00Z', 'manual:' || s.id || ':1', 'succeeded', s.handler, s.payload,
              s.timeout_seconds, s.grace_seconds, 1 FROM schedules s WHERE s.id = $1 RETURNING id`,
      [aId],
    );
    const latest = await occurrence(await schedule(uniq("down-latest"), { after: [{ schedule: a, mapping: "latest_before" }] }), T0);
    const same = await occurrence(await schedule(uniq("down-same"), { after: [{ schedule: a }] }), T0);
    await releaseChainedRuns(h.pool);
    expect((await runOf(latest)).wait_reason).toBeNull();
    expect((await runOf(same)).wait_reason).toBe("upstream");
    const chain = await getRunChain(h.pool, rows[0]!.id);
    expect(chain.downstream.flatMap((d) => d.runs.map((r) => r.runId))).toEqual([latest]);
  });

  it("the wait deadline: still waiting past it, the occurrence is missed with the reason, and the missed alert says it", async () => {
    const a = uniq("up-late");
    await schedule(a);
    const bId = await schedule(uniq("down-late"), { after: [{ schedule: a }], waitDeadlineSeconds: 60 });
    const waitingStill = await occurrence(bId, "2026-06-16T02:00:00.000Z", "planned", { dueInMs: -30_000 });
    const overdue = await occurrence(bId, T0, "planned", { dueInMs: -61_000 });
    const r = await releaseChainedRuns(h.pool);
    expect(r.missed).toBeGreaterThanOrEqual(1);
    expect((await runOf(overdue)).state).toBe("missed");
    expect((await lastEvent(overdue)).message).toBe(
      `missed: still waiting after its wait deadline (60 s): ${a} has no occurrence to run after yet`,
    );
    expect((await runOf(waitingStill)).state).toBe("planned");
    await evaluateAlerts(h.pool, { deadAfterMs: 10_000, plannerLagThresholdMs: 60_000, latenessWindowSeconds: 3600, kinds: ["missed"] });
    const { rows } = await h.pool.query<{ message: string }>(`SELECT message FROM alerts WHERE kind = 'missed' AND schedule_id = $1`, [
      bId,
    ]);
    expect(rows.map((x) => x.message)).toEqual([
      expect.stringContaining(`was missed at its wait deadline, still waiting: ${a} has no occurrence`),
    ]);
  });

  it("fan-in waits for every upstream; fan-out releases every downstream; a release is enqueued like any due run", async () => {
    const a = uniq("fan-a");
    const b = uniq("fan-b");
    const aRun = await occurrence(await schedule(a), T0, "succeeded");
    const bRun = await occurrence(await schedule(b), T0, "running");
    const both = await occurrence(await schedule(uniq("fan-in"), { after: [{ schedule: a }, { schedule: b }] }), T0);
    const afterA1 = await occurrence(await schedule(uniq("fan-out-1"), { after: [{ schedule: a }] }), T0);
    const afterA2 = await occurrence(await schedule(uniq("fan-out-2"), { after: [{ schedule: a, condition: "finished" }] }), T0);
    await releaseChainedRuns(h.pool);
    expect((await runOf(afterA1)).wait_reason).toBeNull();
    expect((await runOf(afterA2)).wait_reason).toBeNull();
    expect(await runOf(both)).toMatchObject({ state: "planned", wait_reason: "upstream" });
    await setState(bRun, "succeeded");
    await releaseChainedRuns(h.pool);
    expect((await runOf(both)).wait_reason).toBeNull();
    expect((await lastEvent(both)).message).toBe(
      `released: ${a} succeeded (occurrence of 2026-06-16 01:00:00 UTC); ${b} succeeded (occurrence of 2026-06-16 01:00:00 UTC)`,
    );
    // Released occurrences are due now: the planner's enqueue sends them their job.
    await enqueueDueRuns(h.pool, h.boss);
    for (const id of [both, afterA1, afterA2]) expect((await runOf(id)).state).toBe("queued");
    const chain = await getRunChain(h.pool, aRun);
    expect(
      chain.downstream
        .map((d) => d.runs.map((r) => r.runId))
        .flat()
        .sort(),
    ).toEqual([both, afterA1, afterA2].sort());
  });

  it("a cycle is refused on save naming it, and an upstream others follow cannot be deleted", async () => {
    const a = uniq("cyc-a");
    const b = uniq("cyc-b");
    const c = uniq("cyc-c");
    const aId = await schedule(a);
    await schedule(b, { after: [{ schedule: a }] });
    await schedule(c, { after: [{ schedule: b }] });
    const s = await getScheduleOrThrow(h.pool, aId);
    const err = await updateSchedule(
      aId,
      { revision: s.revision, after: [{ schedule: c, condition: "succeeded", mapping: "same_time" }] },
      actor,
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 422, code: "dependency_cycle" });
    expect((err as Error).message).toContain(`${a} → ${b} → ${c} → ${a}`);
    expect((await getScheduleOrThrow(h.pool, aId)).after).toEqual([]);
    const self = await schedule(uniq("self")).then(async (id) =>
      updateSchedule(id, { revision: 1, after: [{ schedule: id, condition: "succeeded", mapping: "same_time" }] }, actor).catch(
        (e: unknown) => e,
      ),
    );
    expect((self as Error).message).toContain("cannot run after itself");
    await expect(deleteSchedule(aId, actor)).rejects.toMatchObject({ status: 409, code: "schedule_has_followers" });
    expect((await getScheduleOrThrow(h.pool, aId)).followedBy?.map((f) => f.name)).toEqual([b]);
  });

  it("a schedules document carries links by name: applied in dependency order, a cycle among its schedules refused", async () => {
    const a = uniq("doc-a");
    const b = uniq("doc-b");
    const trigger = { kind: "cron", cron: "0 2 * * *", timezone: "UTC" };
    // b comes first in the document but runs after a: a is created first so the name resolves.
    const doc = {
      version: 1,
      schedules: {
        [b]: { handler: "demo.noop", trigger, after: [{ schedule: a, condition: "finished" }] },
        [a]: { handler: "demo.noop", trigger },
      },
    };
    const applied = await applySchedules({ document: doc, dryRun: false }, actor);
    expect(applied.changes.map((c) => c.name)).toEqual([a, b]);
    const exported = await exportSchedules(h.pool, "admin", { names: [b] });
    expect(exported.document.schedules[b]).toMatchObject({ after: [{ schedule: a, condition: "finished", mapping: "same_time" }] });
    const cyclic = {
      version: 1,
      schedules: {
        [a]: { handler: "demo.noop", trigger, after: [{ schedule: b }] },
        [b]: { handler: "demo.noop", trigger, after: [{ schedule: a }] },
      },
    };
    const err = await applySchedules({ document: cyclic, dryRun: false }, actor).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 422, code: "dependency_cycle" });
    expect((err as Error).message).toMatch(new RegExp(`${a} → ${b} → ${a}|${b} → ${a} → ${b}`));
    // Pruning both deletes the follower first (a alone would be refused while b runs after it).
    const pruned = await applySchedules({ document: { version: 1, schedules: {} }, dryRun: false, prune: true }, actor);
    expect(pruned.changes.map((c) => [c.op, c.name])).toEqual([
      ["delete", b],
      ["delete", a],
    ]);
  });

  it("three planners racing plan each downstream occurrence once and release it once, with one job", { timeout: 60_000 }, async () => {
    const a = uniq("race-a");
    const trigger = { kind: "cron", cron: "* * * * * *", timezone: "UTC" };
    const aId = await schedule(a, { trigger });
    const bId = await schedule(uniq("race-b"), { trigger, after: [{ schedule: a }] });
    const pools = [0, 1, 2].map(() => new pg.Pool({ connectionString: db.url, max: 3 }));
    try {
      const until = Date.now() + 6_000;
      while (Date.now() < until) {
        await Promise.all(pools.map((p) => runPlannerTick(p, h.boss, { horizonSeconds: 10 })));
        // The upstream's due occurrences end succeeded (what its worker would do).
        await h.pool.query(`UPDATE runs SET state = 'succeeded' WHERE schedule_id = $1 AND planned_at <= clock_timestamp()`, [aId]);
      }
      await Promise.all(pools.map((p) => runPlannerTick(p, h.boss, { horizonSeconds: 10 })));
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
    const { rows } = await h.pool.query<{ id: string; state: string; released: number; enqueued: number; jobs: number }>(
      `SELECT r.id, r.state,
              (SELECT count(*)::int FROM run_events e WHERE e.run_id = r.id AND e.type = 'woken' AND e.data->>'chain' = 'released') AS released,
              (SELECT count(*)::int FROM run_events e WHERE e.run_id = r.id AND e.type = 'enqueued') AS enqueued,
              (SELECT count(*)::int FROM pgboss.job j WHERE j.data->>'runId' = r.id::text) AS jobs
         FROM runs r WHERE r.schedule_id = $1 AND r.kind = 'scheduled' AND r.planned_at <= clock_timestamp() - interval '2 seconds'`,
      [bId],
    );
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(rows.filter((r) => r.state !== "queued" || r.released !== 1 || r.enqueued !== 1 || r.jobs !== 1)).toEqual([]);
    const { rows: dup } = await h.pool.query(`SELECT planned_at FROM runs WHERE schedule_id = $1 GROUP BY planned_at HAVING count(*) > 1`, [
      bId,
    ]);
    expect(dup).toEqual([]);
  });

  it("planning writes a downstream's occurrences waiting; an edit that drops the links releases them", async () => {
    const a = uniq("plan-a");
    const trigger = { kind: "cron", cron: "0 * * * * *", timezone: "UTC" };
    await schedule(a, { trigger });
    const bId = await schedule(uniq("plan-b"), { trigger, after: [{ schedule: a }] });
    await planDueSchedules(h.pool, { horizonSeconds: 300 });
    const waiting = async () =>
      (await h.pool.query(`SELECT wait_reason FROM runs WHERE schedule_id = $1 AND state = 'planned'`, [bId])).rows.map(
        (r) => r.wait_reason,
      );
    expect((await waiting()).length).toBeGreaterThan(0);
    expect(new Set(await waiting())).toEqual(new Set(["upstream"]));
    const s = await getScheduleOrThrow(h.pool, bId);
    await updateSchedule(bId, { revision: s.revision, after: [] }, actor);
    expect(new Set(await waiting())).toEqual(new Set([null]));
  });

  it("re-run with downstream: the dry run lists the chain, the re-run puts ended downstream occurrences back to wait", async () => {
    const a = uniq("rr-a");
    const b = uniq("rr-b");
    const aRun = await occurrence(await schedule(a), T0, "failed");
    const bRun = await occurrence(await schedule(b, { after: [{ schedule: a, condition: "finished" }] }), T0);
    const cRun = await occurrence(await schedule(uniq("rr-c"), { after: [{ schedule: b }] }), T0);
    // A failed: B (after A finished) is released and then fails after one attempt; C (after B succeeded) is excluded.
    await releaseChainedRuns(h.pool);
    await h.pool.query(`UPDATE runs SET state = 'failed', attempt = 1 WHERE id = $1`, [bRun]);
    await releaseChainedRuns(h.pool);
    expect((await runOf(cRun)).state).toBe("excluded");

    const preview = await previewRerun(h.pool, aRun);
    expect(preview.downstream.map((d) => [d.runId, d.action])).toEqual([
      [bRun, "rerun"],
      [cRun, "rerun"],
    ]);
    expect(await runOf(bRun)).toMatchObject({ state: "failed" }); // the dry run wrote nothing

    const result = await rerunRun(aRun, actor, "bad input fixed", { boss: h.boss, withDownstream: true });
    expect(result.downstream?.map((d) => d.runId)).toEqual([bRun, cRun]);
    for (const id of [bRun, cRun]) expect(await runOf(id)).toMatchObject({ state: "planned", wait_reason: "upstream" });
    await releaseChainedRuns(h.pool);
    expect((await runOf(bRun)).wait_reason).toBe("upstream"); // A is re-running
    await setState(aRun, "succeeded");
    await releaseChainedRuns(h.pool);
    await enqueueDueRuns(h.pool, h.boss);
    expect((await runOf(bRun)).state).toBe("queued");
    // B's new job is its second attempt (same key); C waits for it.
    const { rows: jobs } = await h.pool.query(`SELECT (data->>'attempt')::int AS attempt FROM pgboss.job WHERE data->>'runId' = $1`, [
      bRun,
    ]);
    expect(jobs.map((j) => j.attempt)).toEqual([2]);
    expect((await runOf(cRun)).wait_reason).toBe("upstream");
    const { rows: audit } = await h.pool.query(`SELECT after FROM audit_events WHERE action = 'run.rerun' AND target_id = $1`, [aRun]);
    expect(audit[0].after.withDownstream).toEqual([
      { runId: bRun, schedule: b, action: "rerun" },
      expect.objectContaining({ runId: cRun, action: "rerun" }),
    ]);
  });
});
