// The timeline window as the console draws it: which runs are in it (planned inside, or started before it and
// still running or finishing inside), superseded occurrences left out, times as millisecond offsets from t0,
// attempts only for retried runs and pointing at the right run, and the truncation flag.
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
    const tl = await getTimeline({ from, to });
    expect(tl.schedules.map((s) => s.name)).toEqual(["a-first", "b-second"]);
    expect(tl.runs.map((r) => r[7])).toEqual([ids["long-running"], ids["ended-inside"], ids.inside, ids.retried, null, ids.future]);
    expect(tl.truncated).toBe(false);
    expect(Date.parse(tl.now)).toBeGreaterThan(Date.parse("2026-01-01"));
  });

  it("sends times as millisecond offsets (planned from t0, the rest from planned) and states, kinds and schedules as indexes", async () => {
    const tl = await getTimeline({ from, to });
    expect(tl.t0).toBe(from.getTime());
    const inside = tl.runs.find((r) => r[7] === ids.inside)!;
    // Planned after t0; due, started and finished after planned.
    expect(inside).toEqual([0, 10 * 60_000, tl.states.indexOf("succeeded"), tl.kinds.indexOf("manual"), 0, 250, 60_000, ids.inside]);
    const future = tl.runs.find((r) => r[7] === ids.future)!;
    expect(future.slice(0, 7)).toEqual([1, 50 * 60_000, tl.states.indexOf("planned"), tl.kinds.indexOf("manual"), 0, null, null]);
    expect(tl.runs.find((r) => r[7] === ids["long-running"])![1]).toBe(-90 * 60_000);
  });

  it("lists attempts only for retried runs, each pointing at its run's index", async () => {
    const tl = await getTimeline({ from, to });
    const idx = tl.runs.findIndex((r) => r[7] === ids.retried);
    expect(tl.attempts).toEqual([
      [idx, 1, 30 * 60_000, 30 * 60_000 + 500, "failed"],
      [idx, 2, 31 * 60_000, 32 * 60_000, "succeeded"],
    ]);
  });

  it("narrows to one schedule, flags a window holding more than the limit, and refuses a bad window", async () => {
    const one = await getTimeline({ from, to, scheduleId: b });
    expect(one.schedules.map((s) => s.id)).toEqual([b]);
    expect(one.runs.map((r) => r[7])).toEqual([ids["ended-inside"], ids.retried, ids.future]);
    expect(one.runs.every((r) => r[0] === 0)).toBe(true);
    const capped = await getTimeline({ from, to, maxRuns: 3 });
    expect(capped.truncated).toBe(true);
    expect(capped.runs).toHaveLength(3);
    await expect(getTimeline({ from: to, to: from })).rejects.toMatchObject({ code: "invalid_query" });
    await expect(getTimeline({ from: new Date(0), to })).rejects.toMatchObject({ code: "invalid_query" });
  });

  it("sends no id for a scheduled run; it is found by its schedule and planned instant, never the superseded one", async () => {
    const tl = await getTimeline({ from, to });
    const scheduled = tl.runs.find((r) => r[0] === 0 && r[1] === 40 * 60_000 + 123)!;
    expect(scheduled[7]).toBeNull();
    expect(await findOccurrence(a, tl.t0 + scheduled[1])).toEqual({ id: ids.scheduled });
    await expect(findOccurrence(a, tl.t0 + scheduled[1] + 1)).rejects.toMatchObject({ code: "not_found" });
    await expect(findOccurrence(b, tl.t0 + scheduled[1])).rejects.toMatchObject({ code: "not_found" });
  });

  it("leaves out runs of a deleted schedule", async () => {
    await pool.query(`UPDATE schedules SET deleted_at = clock_timestamp() WHERE id = $1`, [b]);
    try {
      const tl = await getTimeline({ from, to });
      expect(tl.schedules.map((s) => s.id)).toEqual([a]);
      expect(tl.runs.map((r) => r[7])).toEqual([ids["long-running"], ids.inside, null]);
    } finally {
      await pool.query(`UPDATE schedules SET deleted_at = NULL WHERE id = $1`, [b]);
    }
  });
});
