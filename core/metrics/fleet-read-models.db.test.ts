// The fleet read models (migration 20261203100000_fleet_read_models) answer exactly what counting the runs answers:
// the metrics' fleet figures (readFleetRuns vs aggregateFleet), the per-schedule trouble counts, and the header's
// overview (getRunsOverview vs getRunsOverviewDirect), over seeded history with late, missed, hollow, failed,
// timed-out, skipped, zombie and unfinished runs, and again after runs change state once counted (a re-run, a zombie,
// a late run finishing, a cancel request moving updated_at, a jitter change, deleted runs). The last test drops the
// trigger and shows the comparison catches it.
import { foldFleetDeltas } from "./fold-fleet-deltas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testPool, useTestDatabase } from "@/test/db";
import { seedScheduleHistory } from "@/test/seed-history";
import { insertRunRow } from "@/test/alert-fixtures";
import { aggregateFleet } from "./aggregate-fleet";
import { readFleetRuns } from "./read-fleet-runs";
import { getScheduleTrouble } from "./get-schedule-trouble";
import { getRunsOverview, getRunsOverviewDirect } from "../runs/read/overview";
import type { HistogramCounts } from "./aggregate-runs";

const db = useTestDatabase("fleet_read_models");
let pool: ReturnType<typeof testPool>;
let ids: string[] = [];

const round = (h: HistogramCounts) => ({ ...h, sum: Math.round(h.sum * 1000) / 1000 });

async function answers(windowSeconds = 3600) {
  // One snapshot for both sides: the window moves with the clock, so both read in one repeatable-read transaction.
  const c = await pool.connect();
  try {
    await c.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
    const direct = await aggregateFleet(c, windowSeconds);
    const model = await readFleetRuns(c, windowSeconds);
    const trouble = await getScheduleTrouble(c, windowSeconds);
    const overviewDirect = await getRunsOverviewDirect(c);
    const overview = await getRunsOverview(c);
    await c.query("COMMIT");
    const bySchedule = (t: { schedule: string }[]) => [...t].sort((a, b) => a.schedule.localeCompare(b.schedule));
    const fleet = (f: Omit<typeof model, never>) => ({
      byState: Object.fromEntries([...f.byState].filter(([, n]) => n !== 0).sort()),
      retries: f.retries,
      lateness: round(f.lateness),
      gap: round(f.gap),
      duration: round(f.duration),
    });
    return {
      direct: { fleet: fleet(direct), trouble: bySchedule(direct.trouble), overview: overviewDirect.lastHour },
      model: { fleet: fleet(model), trouble: bySchedule(trouble), overview: overview.lastHour },
    };
  } finally {
    c.release();
  }
}

/** Compares with the changes still as appended deltas, then again once a worker's fold has moved them into the minute rows. */
async function expectSame() {
  const before = await answers();
  expect(before.model).toEqual(before.direct);
  expect(await foldFleetDeltas(pool)).toBeGreaterThanOrEqual(0);
  const { rows } = await pool.query<{ n: number }>(
    `SELECT (SELECT count(*) FROM fleet_run_minute_deltas) + (SELECT count(*) FROM fleet_attention_minute_deltas) AS n`,
  );
  expect(Number(rows[0]!.n)).toBe(0);
  const after = await answers();
  expect(after.model).toEqual(after.direct);
  return after.direct;
}

beforeAll(async () => {
  pool = testPool(db.url);
  ({ ids } = await seedScheduleHistory(pool, { prefix: "fleet-", schedules: 6, hours: 2 }));
  // Off the minute (the window's partial minutes), unfinished, zombie, retried and backfilled runs.
  await insertRunRow(pool, ids[0]!, { state: "zombie", plannedAgoMs: 125_500, startedAgoMs: 125_000, finishedAgoMs: 5_000 });
  await insertRunRow(pool, ids[0]!, { state: "running", plannedAgoMs: 30_300, startedAgoMs: 25_000 });
  await insertRunRow(pool, ids[1]!, { state: "queued", plannedAgoMs: 2_500 });
  await insertRunRow(pool, ids[1]!, { state: "retrying", plannedAgoMs: 3_599_000, startedAgoMs: 3_590_000, attempt: 2 });
  await insertRunRow(pool, ids[2]!, {
    state: "failed",
    plannedAgoMs: 3_599_900,
    startedAgoMs: 3_599_000,
    finishedAgoMs: 3_000_000,
    attempt: 3,
  });
  await insertRunRow(pool, ids[2]!, {
    state: "succeeded",
    kind: "backfill",
    plannedAgoMs: 1_800_700,
    startedAgoMs: 100,
    finishedAgoMs: 50,
  });
  // Troubled runs last touched at different moments (some outside the header's hour, some in its partial minute).
  await pool.query(
    `UPDATE runs SET updated_at = planned_at + interval '17 seconds' WHERE state IN ('missed', 'hollow', 'failed', 'timed_out', 'zombie')`,
  );
}, 120_000);

afterAll(async () => {
  await pool?.end();
});

describe("fleet read models", () => {
  it("answer what the runs answer over seeded history", async () => {
    const d = await expectSame();
    // The history holds every kind of trouble, so the comparison covers each count.
    expect(Object.keys(d.fleet.byState)).toEqual(
      expect.arrayContaining([
        "failed",
        "hollow",
        "missed",
        "queued",
        "running",
        "retrying",
        "skipped_overlap",
        "succeeded",
        "timed_out",
        "zombie",
      ]),
    );
    expect(d.overview.late).toBeGreaterThan(0);
    expect(d.overview.zombie).toBe(1);
    expect(d.trouble.length).toBe(6);
  });

  it("stay true when counted runs change state", async () => {
    // A re-run of failed runs (leaves failed, back to queued, then succeeds).
    await pool.query(
      `UPDATE runs SET state = 'queued', reruns = reruns + 1, updated_at = clock_timestamp()
        WHERE id IN (SELECT id FROM runs WHERE state = 'failed' AND planned_at > now() - interval '50 minutes' ORDER BY planned_at LIMIT 3)`,
    );
    await expectSame();
    await pool.query(
      `UPDATE runs SET state = 'succeeded', attempt = attempt + 1, started_at = clock_timestamp(), finished_at = clock_timestamp(),
              lateness_ms = 120000, duration_ms = 40, updated_at = clock_timestamp()
        WHERE state = 'queued' AND reruns > 0`,
    );
    await expectSame();
    // The running run goes zombie; a cancel request on the zombie moves its updated_at; a late run finishes.
    await pool.query(
      `UPDATE runs SET state = 'zombie', finished_at = clock_timestamp(), updated_at = clock_timestamp() WHERE state = 'running'`,
    );
    await pool.query(
      `UPDATE runs SET cancel_requested_at = clock_timestamp(), updated_at = clock_timestamp() - interval '70 minutes' WHERE state = 'zombie'`,
    );
    await pool.query(
      `UPDATE runs SET state = 'running', attempt = 1, started_at = now() - interval '2 seconds', lateness_ms = 9000 WHERE state = 'queued' AND reruns = 0`,
    );
    await expectSame();
    await pool.query(
      `UPDATE runs SET state = 'failed', finished_at = clock_timestamp(), duration_ms = 2000, updated_at = clock_timestamp() WHERE state = 'running'`,
    );
    // A schedule's jitter now covers its late starts; missed runs become hollow; some runs are deleted.
    await pool.query(`UPDATE schedules SET start_jitter_ms = 60000 WHERE id = $1`, [ids[3]]);
    await pool.query(
      `UPDATE runs SET state = 'hollow' WHERE id IN (SELECT id FROM runs WHERE state = 'missed' ORDER BY planned_at DESC LIMIT 5)`,
    );
    await pool.query(`DELETE FROM attempts WHERE run_id IN (SELECT id FROM runs WHERE schedule_id = $1)`, [ids[4]]);
    await pool.query(`DELETE FROM runs WHERE schedule_id = $1`, [ids[4]]);
    const d = await expectSame();
    expect(d.trouble.length).toBe(5);
  });

  it("a comparison that catches a model the trigger no longer keeps", async () => {
    await pool.query(`DROP TRIGGER runs_update_summaries ON runs`);
    await pool.query(
      `UPDATE runs SET state = 'failed', updated_at = clock_timestamp() WHERE id IN (SELECT id FROM runs WHERE state = 'succeeded' AND planned_at > now() - interval '30 minutes' LIMIT 4)`,
    );
    const { direct, model } = await answers();
    expect(model.fleet.byState).not.toEqual(direct.fleet.byState);
    expect(model.overview.failed).not.toBe(direct.overview.failed);
  });
});
