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

describe("runs list without a filter", () => {
  it("reads its running and zombie runs (the first phase) through indexes, not by scanning the table", async () => {
    // A history of finished runs and one running run: a first phase asked as `state = ANY(running, zombie)` has no
    // index to read (each state is in a different partial one) and scanned the whole table (3.6 s at 10 M runs).
    const other = await insertSchedule(pool, { handler: "demo.noop" });
    await pool.query(
      `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds, attempt, created_at)
       SELECT $1, 'scheduled', t, t, 'scale-' || g, 'succeeded', 'demo.noop', 30, 1, 1, t
         FROM generate_series(1, 30000) g, LATERAL (SELECT now() - g * interval '10 seconds' AS t) x`,
      [other],
    );
    const running = await insertRun(pool, other, { inMs: -90 * 86_400_000 });
    await pool.query(`UPDATE runs SET state = 'running', started_at = planned_at WHERE id = $1`, [running]);
    await pool.query(`ANALYZE runs`);
    const c = await pool.connect();
    try {
      await c.query("BEGIN");
      const page = await listRuns(c, { limit: 50 });
      const { rows } = await c.query<{ seq_scan: string; seq_tup_read: string }>(
        `SELECT seq_scan, seq_tup_read FROM pg_stat_xact_user_tables WHERE relname = 'runs'`,
      );
      await c.query("ROLLBACK");
      expect(page.runs[0]!.id).toBe(running);
      expect(page.runs).toHaveLength(50);
      expect(Number(rows[0]!.seq_tup_read)).toBe(0);
    } finally {
      c.release();
    }
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
