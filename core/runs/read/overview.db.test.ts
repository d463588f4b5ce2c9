import { describe, expect, it } from "vitest";
import { getPool } from "../../db/pool";
import { getRunsOverview } from "./overview";
import { useTestDatabase } from "../../../test/db";

useTestDatabase("runs_overview");

async function schedule(name: string, startJitterMs = 0): Promise<string> {
  const { rows } = await getPool().query(
    `INSERT INTO schedules (name, handler, trigger, start_jitter_ms) VALUES ($1, 'demo.noop', '{"kind":"interval","everySeconds":60}', $2) RETURNING id`,
    [name, startJitterMs],
  );
  return rows[0].id;
}

/** A run planned `minutesAgo` before the database clock, started `latenessSec` after that (null: never started). */
async function run(scheduleId: string, minutesAgo: number, state: string, latenessSec: number | null): Promise<void> {
  await getPool().query(
    `INSERT INTO runs (schedule_id, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds,
                       started_at, lateness_ms, finished_at)
     SELECT $1, p, p, gen_random_uuid()::text, $3, 'demo.noop', 60, 5,
            CASE WHEN $4::float8 IS NULL THEN NULL ELSE p + make_interval(secs => $4::float8) END,
            CASE WHEN $4::float8 IS NULL THEN NULL ELSE ($4::float8 * 1000)::int END,
            CASE WHEN $3 IN ('planned', 'queued', 'running') THEN NULL ELSE p + make_interval(secs => coalesce($4::float8, 0) + 1) END
       FROM (SELECT clock_timestamp() - make_interval(mins => $2) AS p) t`,
    [scheduleId, minutesAgo, state, latenessSec],
  );
}

describe("runs overview (header indicator)", () => {
  it("counts late, missed, hollow and zombie runs of the last hour, not older ones or starts within the jitter window", async () => {
    const a = await schedule("overview-a");
    const jittered = await schedule("overview-jittered", 60_000);
    await run(a, 5, "succeeded", 30); // late
    await run(jittered, 6, "succeeded", 30); // 30 s after planned, inside its 60 s jitter window: on time
    await run(a, 7, "missed", null);
    await run(a, 8, "hollow", 0.2);
    await run(a, 9, "zombie", 0.1);
    await run(a, 10, "running", 0.1);
    await run(a, 11, "timed_out", 0.1);
    await run(a, 200, "succeeded", 90); // late, but long ago
    const o = await getRunsOverview(getPool());
    expect(o.lastHour).toEqual({ late: 1, missed: 1, hollow: 1, zombie: 1, failed: 1 });
    expect(o.running).toBe(1);
  });

  it("reports all clear when nothing went wrong", async () => {
    await getPool().query("DELETE FROM runs");
    const s = await schedule("overview-clean");
    await run(s, 3, "succeeded", 0.2);
    const o = await getRunsOverview(getPool());
    expect(o.lastHour).toEqual({ late: 0, missed: 0, hollow: 0, zombie: 0, failed: 0 });
  });
});
