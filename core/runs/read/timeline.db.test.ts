// The timeline window as the console draws it: which runs are in it (planned inside, or started before it and
// still running or finishing inside), superseded occurrences left out, times as millisecond offsets from t0,
// attempts only for retried runs and pointing at the right run, and the summary that replaces truncation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { useTestDatabase, testPool } from "../../../test/db";
import { insertSchedule } from "../../../test/run-fixtures";
import { findOccurrence } from "./find-occurrence";
import { getTimeline } from "./timeline";

const db = useTestDatabase("timeline");
let pool: pg.Pool;
let a: string;
let b: string;
const from = new Date("2026-06-01T12:00:00.000Z");
const to = new Date("2026-06-01T13:00:00.000Z");
const at = (min: number, ms = 0) => new Date(from.getTime() + min * 60_000 + ms);
const ids: Record<string, string> = {};

async function run(
  name: string,
  scheduleId: string,
  o: { planned: Date; state: string; started?: Date; finished?: Date; attempt?: number; key?: string; kind?: string; lateness?: number },
): Promise<void> {
  const { rows } = await pool.query(
    `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds,
                       attempt, started_at, finished_at, lateness_ms)
     VALUES ($1, $2, $3, $3, $4, $5, 'demo.sleep', 30, 1, $6, $7, $8, $9) RETURNING id`,
    [
      scheduleId,
      o.kind ?? "manual",
      o.planned,
      o.key ?? `k:${name}`,
      o.state,
      o.attempt ?? 1,
      o.started ?? null,
      o.finished ?? null,
      o.lateness ?? null,
    ],
  );
  ids[name] = rows[0].id;
}

beforeAll(async () => {
  pool = testPool(db.url, 2);
  a = await insertSchedule(pool, { handler: "demo.sleep" });
  b = await insertSchedule(pool, { handler: "demo.sleep" });
  await pool.query(`UPDATE schedules SET name = 'a-first' WHERE id = $1`, [a]);
  await pool.query(`UPDATE schedules SET name = 'b-second' WHERE id = $1`, [b]);
  await run("inside", a, { planned: at(10), state: "succeeded", started: at(10, 250), finished: at(11), lateness: 250 });
  await run("future", b, { planned: at(50), state: "planned" });
  await run("long-running", a, { planned: at(-90), state: "running", started: at(-90) });
  await run("ended-inside", b, { planned: at(-30), state: "succeeded", started: at(-30), finished: at(5) });
  await run("ended-before", a, { planned: at(-30), state: "succeeded", started: at(-30), finished: at(-20) });
  await run("after-window", a, { planned: at(61), state: "planned" });
  await run("superseded", a, { planned: at(20), state: "cancelled", key: "superseded:x" });
  await run("scheduled", a, {
    planned: at(40, 123),
    state: "succeeded",
    kind: "scheduled",
    key: "sched:40",
    started: at(40, 200),
    finished: at(41),
  });
  await run("scheduled-superseded", a, { planned: at(40, 123), state: "cancelled", kind: "scheduled", key: "superseded:sched:40" });
  await run("retried", b, { planned: at(30), state: "succeeded", attempt: 2, started: at(31), finished: at(32) });
  await pool.query(
    `INSERT INTO attempts (run_id, number, state, started_at, finished_at) VALUES ($1, 1, 'failed', $2, $3), ($1, 2, 'succeeded', $4, $5)`,
    [ids.retried, at(30), at(30, 500), at(31), at(32)],
  );
});

afterAll(async () => {
  await pool.end();
});

describe("getTimeline", () => {
  it("holds the runs planned in the window and those that started before it and ran into it, in planned order", async () => {
    const tl = await getTimeline(pool, { from, to });
    expect(tl.schedules.map((s) => s.name)).toEqual(["a-first", "b-second"]);
    expect(tl.runs.map((r) => r[7])).toEqual([ids["long-running"], ids["ended-inside"], ids.inside, ids.retried, null, ids.future]);
    expect(tl.mode).toBe("runs");
    expect(tl.lanes).toEqual({ total: 2, offset: 0 });
    expect(Date.parse(tl.now)).toBeGreaterThan(Date.parse("2026-01-01"));
  });

  it("sends times as millisecond offsets (planned from t0, the rest from planned) and states, kinds and schedules as indexes", async () => {
    const tl = await getTimeline(pool, { from, to });
    expect(tl.t0).toBe(from.getTime());
    const inside = tl.runs.find((r) => r[7] === ids.inside)!;
    // Planned after t0; due, started and finished after planned.
    expect(inside).toEqual([0, 10 * 60_000, tl.states.indexOf("succeeded"), tl.kinds.indexOf("manual"), 0, 250, 60_000, ids.inside]);
    const future = tl.runs.find((r) => r[7] === ids.future)!;
    expect(future.slice(0, 7)).toEqual([1, 50 * 60_000, tl.states.indexOf("planned"), tl.kinds.indexOf("manual"), 0, null, null]);
    expect(tl.runs.find((r) => r[7] === ids["long-running"])![1]).toBe(-90 * 60_000);
  });

  it("lists attempts only for retried runs, each pointing at its run's index", async () => {
    const tl = await getTimeline(pool, { from, to });
    const idx = tl.runs.findIndex((r) => r[7] === ids.retried);
    expect(tl.attempts).toEqual([
      [idx, 1, 30 * 60_000, 30 * 60_000 + 500, "failed"],
      [idx, 2, 31 * 60_000, 32 * 60_000, "succeeded"],
    ]);
  });

  it("narrows to one schedule, summarises a window holding more than the limit, and refuses a bad window", async () => {
    const one = await getTimeline(pool, { from, to, scheduleId: b });
    expect(one.schedules.map((s) => s.id)).toEqual([b]);
    expect(one.runs.map((r) => r[7])).toEqual([ids["ended-inside"], ids.retried, ids.future]);
    expect(one.runs.every((r) => r[0] === 0)).toBe(true);
    const capped = await getTimeline(pool, { from, to, maxRuns: 3 });
    expect(capped.mode).toBe("summary");
    expect(capped.runs).toHaveLength(0);
    // Every run planned in the window is in some bucket: nothing is dropped.
    const counted = capped.buckets.reduce((n, b) => n + b.slice(5).reduce((m, v, i) => (i % 2 === 1 ? m + v : m), 0), 0);
    const inWindow = (await getTimeline(pool, { from, to })).runs.filter((r) => r[1] >= 0).length;
    expect(counted).toBe(inWindow);
    await expect(getTimeline(pool, { from: to, to: from })).rejects.toMatchObject({ code: "invalid_query" });
    await expect(getTimeline(pool, { from: new Date(0), to })).rejects.toMatchObject({ code: "invalid_query" });
  });

  it("says when the lanes' history began, outside the window too (the console fits a young install's window to it)", async () => {
    expect((await getTimeline(pool, { from, to })).historyFrom).toBe(at(-90).toISOString());
    expect((await getTimeline(pool, { from, to, scheduleId: b })).historyFrom).toBe(at(-30).toISOString());
    expect((await getTimeline(pool, { from, to, maxRuns: 3 })).historyFrom).toBe(at(-90).toISOString());
    const empty = await insertSchedule(pool, { handler: "demo.sleep" });
    try {
      expect((await getTimeline(pool, { from, to, scheduleId: empty })).historyFrom).toBeNull();
    } finally {
      await pool.query(`UPDATE schedules SET deleted_at = now() WHERE id = $1`, [empty]);
    }
  });

  it("sends no id for a scheduled run; it is found by its schedule and planned instant, never the superseded one", async () => {
    const tl = await getTimeline(pool, { from, to });
    const scheduled = tl.runs.find((r) => r[0] === 0 && r[1] === 40 * 60_000 + 123)!;
    expect(scheduled[7]).toBeNull();
    expect(await findOccurrence(pool, a, tl.t0 + scheduled[1])).toEqual({ id: ids.scheduled });
    await expect(findOccurrence(pool, a, tl.t0 + scheduled[1] + 1)).rejects.toMatchObject({ code: "not_found" });
    await expect(findOccurrence(pool, b, tl.t0 + scheduled[1])).rejects.toMatchObject({ code: "not_found" });
  });

  it("leaves out runs of a deleted schedule", async () => {
    await pool.query(`UPDATE schedules SET deleted_at = clock_timestamp() WHERE id = $1`, [b]);
    try {
      const tl = await getTimeline(pool, { from, to });
      expect(tl.schedules.map((s) => s.id)).toEqual([a]);
      expect(tl.runs.map((r) => r[7])).toEqual([ids["long-running"], ids.inside, null]);
    } finally {
      await pool.query(`UPDATE schedules SET deleted_at = NULL WHERE id = $1`, [b]);
    }
  });

  it("summarises when the runs outnumber the chart's pixels: per-lane buckets with counts, worst state and lateness", async () => {
    const tl = await getTimeline(pool, { from, to, width: 100 }); // 100 px for 2 lanes: at most 100 runs before summarising
    expect(tl.mode).toBe("runs");
    const narrow = await getTimeline(pool, { from, to, width: 100, maxRuns: 1 });
    expect(narrow.mode).toBe("summary");
    expect(narrow.bucketMs).toBe(Math.ceil((to.getTime() - from.getTime()) / 25));
    const retriedBucket = narrow.buckets.find((b) => b[0] === 1 && b[1] === Math.floor((30 * 60_000) / narrow.bucketMs))!;
    expect(retriedBucket).toBeDefined();
    expect(narrow.states[retriedBucket[2]!]).toBe("succeeded");
  });

  it("pages lanes and sorts them by trouble in the window", async () => {
    const first = await getTimeline(pool, { from, to, laneLimit: 1 });
    expect(first.schedules.map((s) => s.name)).toEqual(["a-first"]);
    expect(first.lanes.total).toBe(2);
    expect(first.runs.every((r) => r[0] === 0)).toBe(true);
    const second = await getTimeline(pool, { from, to, laneLimit: 1, laneOffset: 1 });
    expect(second.schedules.map((s) => s.name)).toEqual(["b-second"]);
    const { rows } = await pool.query(
      `INSERT INTO runs (schedule_id, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds)
       VALUES ($1, $2, $2, 'tl-trouble', 'missed', 'demo.noop', 60, 5) RETURNING id`,
      [b, new Date(from.getTime() + 15 * 60_000)],
    );
    try {
      const byTrouble = await getTimeline(pool, { from, to, sort: "trouble" });
      expect(byTrouble.schedules.map((s) => s.name)).toEqual(["b-second", "a-first"]);
      const missedOnly = await getTimeline(pool, { from, to, trouble: "missed" });
      expect(missedOnly.schedules.map((s) => s.name)).toEqual(["b-second"]);
      expect((await getTimeline(pool, { from, to, q: "FIRST" })).schedules.map((s) => s.name)).toEqual(["a-first"]);
    } finally {
      await pool.query(`DELETE FROM runs WHERE id = $1`, [rows[0].id]);
    }
  });
});
