import { describe, expect, it } from "vitest";
import { getPool } from "../db/pool";
import { getRunsOverview, getScheduleRunStats } from "./overview";

import { useTestDatabase } from "../../test/db";

useTestDatabase("runs_overview");

async function schedule(name: string): Promise<string> {
  const { rows } = await getPool().query(
    `INSERT INTO schedules (name, handler, trigger) VALUES ($1, 'demo.noop', '{"kind":"interval","everySeconds":60}') RETURNING id`,
    [name],
  );
  return rows[0].id;
}

/** A run relative to the database clock: minutes ago for planned, seconds late, state. */
async function run(scheduleId: string, minutesAgo: number, state: string, latenessSec: number | null, jitterSec = 0): Promise<void> {
  await getPool().query(
    `INSERT INTO runs (schedule_id, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds,
                       started_at, lateness_ms, finished_at)
     SELECT $1, p, p + make_interval(secs => $5), gen_random_uuid()::text, $3, 'demo.noop', 60, 5,
            CASE WHEN $4::float8 IS NULL THEN NULL ELSE p + make_interval(secs => $4::float8) END,
            CASE WHEN $4::float8 IS NULL THEN NULL ELSE ($4::float8 * 1000)::int END,
            CASE WHEN $3 IN ('planned', 'queued', 'running') THEN NULL ELSE p + make_interval(secs => coalesce($4::float8, 0) + 1) END
       FROM (SELECT clock_timestamp() - make_interval(mins => $2) AS p) t`,
    [scheduleId, minutesAgo, state, latenessSec, jitterSec],
  );
}

describe("runs overview", () => {
  it("counts what went wrong in the last hour and ignores older or on-time runs", async () => {
    const a = await schedule("overview-a");
    await run(a, 5, "succeeded", 30); // late
    await run(a, 6, "succeeded", 30, 29.5); // within its own jitter: on time
    await run(a, 7, "missed", null);
    await run(a, 8, "hollow", 0.2);
    await run(a, 9, "zombie", 0.1);
    await run(a, 10, "running", 0.1);
    await run(a, 200, "succeeded", 90); // late, but long ago
    const o = await getRunsOverview(getPool());
    expect(o.lastHour).toEqual({ late: 1, missed: 1, hollow: 1, zombie: 1, failed: 0 });
    expect(o.running).toBe(1);
  });

  it("gives each schedule its last outcome, next planned fire, 24 h tallies and lateness series", async () => {
    const b = await schedule("overview-b");
    await run(b, 30, "failed", 2);
    await run(b, 20, "succeeded", 0.5);
    await run(b, -5, "planned", null);
    const { schedules } = await getScheduleRunStats(getPool());
    const s = schedules.find((x) => x.scheduleId === b)!;
    expect(s.lastRun?.state).toBe("succeeded");
    expect(s.nextFireSource).toBe("planned");
    expect(s.nextFireAt!.getTime()).toBeGreaterThan(s.lastRun!.plannedAt.getTime());
    expect(s.last24h).toMatchObject({ late: 1, failed: 1, missed: 0, total: 2 });
    expect(s.lateness.map((p) => p.latenessMs)).toEqual([2000, 500]);
  });

  it("falls back to the trigger's next fire when nothing is planned yet", async () => {
    const c = await schedule("overview-c");
    const { now, schedules } = await getScheduleRunStats(getPool());
    const s = schedules.find((x) => x.scheduleId === c)!;
    expect(s.lastRun).toBeNull();
    expect(s.nextFireSource).toBe("computed");
    expect(s.nextFireAt!.getTime()).toBeGreaterThan(now.getTime() - 1000);
    expect(s.nextFireAt!.getTime()).toBeLessThanOrEqual(now.getTime() + 60_000);
  });
});
