// The read paths rewritten so their cost does not grow with the history kept (migration
// 20261203600000_run_read_indexes): the runs list filtered by several states (one statement per state, merged)
// answers and pages exactly as one statement over all of them would, and the timeline's look-back (three parts:
// the near past by planned time, running/retrying runs, runs finished inside the window long after their planned
// time) finds every run that ran into the window and none that did not.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { useTestDatabase, testPool } from "../../../test/db";
import { insertRun, insertSchedule } from "../../../test/run-fixtures";
import { listRuns } from "./list-runs";
import { getTimeline } from "./timeline";

const db = useTestDatabase("read_at_scale");
let pool: pg.Pool;
let scheduleId: string;

beforeAll(async () => {
  pool = testPool(db.url, 2);
  scheduleId = await insertSchedule(pool, { handler: "demo.sleep" });
});

afterAll(async () => {
  await pool.end();
});

describe("runs list by several states", () => {
  it("merges the states newest first (ties by id) and pages without skipping or repeating a run", async () => {
    const states = ["failed", "missed", "hollow", "timed_out", "succeeded"];
    const made: { id: string; state: string }[] = [];
    for (let i = 0; i < 40; i++) {
      // Pairs planned at the same instant, so the id decides their order.
      const id = await insertRun(pool, scheduleId, { inMs: -(Math.floor(i / 2) + 1) * 60_000 });
      const state = states[(i * 7) % states.length]!;
      await pool.query(`UPDATE runs SET state = $2, planned_at = date_trunc('minute', planned_at) WHERE id = $1`, [id, state]);
      made.push({ id, state });
    }
    const wanted = ["failed", "hollow", "timed_out"];
    const { rows } = await pool.query<{ id: string }>(
      `SELECT id FROM runs WHERE schedule_id = $1 AND state = ANY($2::text[]) ORDER BY planned_at DESC, id DESC`,
      [scheduleId, wanted],
    );
    expect(rows.length).toBeGreaterThan(15);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await listRuns(pool, { scheduleId, states: wanted, limit: 7, cursor });
      seen.push(...page.runs.map((r) => r.id));
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(rows.map((r) => r.id));
    // One state alone and a repeated state give the same rows as the statement above restricted to them.
    const failed = rows.filter((r) => made.find((m) => m.id === r.id)!.state === "failed").map((r) => r.id);
    expect((await listRuns(pool, { scheduleId, states: ["failed"], limit: 100 })).runs.map((r) => r.id)).toEqual(failed);
    expect((await listRuns(pool, { scheduleId, states: ["failed", "failed"], limit: 100 })).runs.map((r) => r.id)).toEqual(failed);
  });
});

describe("timeline look-back", () => {
  it("shows runs planned before the window that ran into it, by every path, and no others", async () => {
    const s = await insertSchedule(pool, { handler: "demo.sleep" });
    const from = new Date("2026-06-01T12:00:00.000Z");
    const to = new Date("2026-06-01T13:00:00.000Z");
    const at = (min: number) => new Date(from.getTime() + min * 60_000);
    const put = async (key: string, planned: Date, state: string, finished: Date | null) => {
      const { rows } = await pool.query<{ id: string }>(
        `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds,
                           started_at, finished_at)
         VALUES ($1, 'manual', $2, $2, $3, $4, 'demo.sleep', 30, 1, $2, $5) RETURNING id`,
        [s, planned, `k:${key}`, state, finished],
      );
      return rows[0]!.id;
    };
    const shown = [
      await put("near-ended-inside", at(-5), "succeeded", at(1)), // planned in the last 10 min, finished inside
      await put("near-running", at(-3), "running", null),
      await put("long-ended-inside", at(-200), "failed", at(30)), // finished inside, long after its planned time
      await put("old-retrying", at(-600), "retrying", null),
      await put("old-running", at(-23 * 60), "running", null),
      await put("inside", at(10), "succeeded", at(11)),
    ];
    const hidden = [
      await put("near-ended-before", at(-8), "succeeded", at(-7)),
      await put("long-ended-before", at(-200), "succeeded", at(-100)), // in the long-run index, but ended before
      await put("ended-at-11-min", at(-11), "succeeded", at(-0.5)),
      await put("queued-old", at(-120), "queued", null),
      await put("too-old", at(-25 * 60), "running", null), // beyond the one-day look-back
    ];
    const tl = await getTimeline(pool, { from, to, scheduleId: s });
    const got = new Set(tl.runs.map((r) => r[7]));
    for (const id of shown) expect(got.has(id), `shown ${id}`).toBe(true);
    for (const id of hidden) expect(got.has(id), `hidden ${id}`).toBe(false);
    expect(tl.runs).toHaveLength(shown.length);
  });
});
