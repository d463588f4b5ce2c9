// The fleet read models (migration 20261203100000_fleet_read_models) answer exactly what counting the runs answers:
// the metrics' fleet figures (readFleetRuns vs aggregateFleet) and the header's overview (getRunsOverview vs
// getRunsOverviewDirect), over seeded history with late, missed, hollow, failed, timed-out, skipped, zombie and
// unfinished runs (and one cancelled before it was due, planned later in the current minute), and again after runs
// change state once counted (a re-run, a zombie, a late run finishing, a cancel
// request moving updated_at, a jitter change, deleted runs). The per-schedule trouble counters (20261204100000) grow
// by exactly the runs that entered each class since the last look (missed, hollow, failed, late: recounted from the
// runs), never shrink when runs leave one. Both are checked with the changes still as appended deltas and again after
// a fold. The last tests drop a trigger and show each comparison catches it.
import { foldFleetDeltas } from "./fold-fleet-deltas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testPool, useTestDatabase } from "@/test/db";
import { seedScheduleHistory } from "@/test/seed-history";
import { insertRunRow } from "@/test/alert-fixtures";
import { aggregateFleet } from "./aggregate-fleet";
import { readFleetRuns } from "./read-fleet-runs";
import { getScheduleTroubleCounters, type ScheduleTroubleCounters } from "./get-schedule-trouble-counters";
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
    const overviewDirect = await getRunsOverviewDirect(c);
    const overview = await getRunsOverview(c);
    await c.query("COMMIT");
    const fleet = (f: Omit<typeof model, never>) => ({
      byState: Object.fromEntries([...f.byState].filter(([, n]) => n !== 0).sort()),
      retries: f.retries,
      lateness: round(f.lateness),
      gap: round(f.gap),
      duration: round(f.duration),
    });
    return {
      direct: { fleet: fleet(direct), overview: overviewDirect.lastHour },
      model: { fleet: fleet(model), overview: overview.lastHour },
    };
  } finally {
    c.release();
  }
}

type TroubleClass = "missed" | "hollow" | "failed" | "late";
const CLASSES: TroubleClass[] = ["missed", "hollow", "failed", "late"];

/** Each run in a trouble class now, as "schedule|class|run" (counted straight from the runs, lateness.ts's rule for late). */
async function troubledRuns(): Promise<Set<string>> {
  const { rows } = await pool.query<{ k: string }>(
    `SELECT s.name || '|' || c.class || '|' || r.id AS k
       FROM runs r JOIN schedules s ON s.id = r.schedule_id
      CROSS JOIN LATERAL (VALUES ('missed', r.state = 'missed'), ('hollow', r.state = 'hollow'),
                                 ('failed', r.state IN ('failed', 'timed_out')),
                                 ('late', r.kind <> 'backfill' AND r.reruns = 0 AND r.lateness_ms > coalesce(s.start_jitter_ms, 0) + 1000)) c(class, yes)
      WHERE c.yes`,
  );
  return new Set(rows.map((r) => r.k));
}

// What the counters must read: every run that entered a class since the previous look, added up per schedule.
let seen = new Set<string>();
const expectedCounters = new Map<string, Record<TroubleClass, number>>();

async function expectCounters(): Promise<Map<string, Record<TroubleClass, number>>> {
  const now = await troubledRuns();
  for (const k of now) {
    if (seen.has(k)) continue;
    const [schedule, cls] = k.split("|") as [string, TroubleClass];
    const e = expectedCounters.get(schedule) ?? { missed: 0, hollow: 0, failed: 0, late: 0 };
    e[cls] += 1;
    expectedCounters.set(schedule, e);
  }
  seen = now;
  return expectedCounters;
}

const asMap = (rows: ScheduleTroubleCounters[]) =>
  new Map(
    rows
      .filter((r) => CLASSES.some((c) => r[c] !== 0))
      .map((r) => [r.schedule, { missed: r.missed, hollow: r.hollow, failed: r.failed, late: r.late }] as const),
  );

/** Compares with the changes still as appended deltas, then again once a worker's fold has moved them into the minute rows. */
async function expectSame() {
  const before = await answers();
  expect(before.model).toEqual(before.direct);
  const expected = await expectCounters();
  expect(asMap(await getScheduleTroubleCounters(pool))).toEqual(expected);
  expect(await foldFleetDeltas(pool)).toBeGreaterThanOrEqual(0);
  const { rows } = await pool.query<{ n: number }>(
    `SELECT (SELECT count(*) FROM fleet_run_minute_deltas) + (SELECT count(*) FROM fleet_attention_minute_deltas)
            + (SELECT count(*) FROM schedule_trouble_deltas) AS n`,
  );
  expect(Number(rows[0]!.n)).toBe(0);
  const after = await answers();
  expect(after.model).toEqual(after.direct);
  expect(asMap(await getScheduleTroubleCounters(pool))).toEqual(expected);
  return { ...after.direct, counters: expected };
}

beforeAll(async () => {
  pool = testPool(db.url);
  // Start in a minute's first 40 s (the run cancelled before it was due, below, is placed at that minute's 59th second).
  const deadline = performance.now() + 30_000;
  while ((await pool.query<{ s: number }>(`SELECT extract(second FROM now())::float8 AS s`)).rows[0]!.s >= 40) {
    if (performance.now() > deadline) throw new Error("the clock's minute did not turn");
    await new Promise((r) => setTimeout(r, 200));
  }
  ({ ids } = await seedScheduleHistory(pool, { prefix: "fleet-", schedules: 6, hours: 2 }));
  // Off the minute (the window's partial minutes), unfinished, zombie, retried and backfilled runs.
  await insertRunRow(pool, ids[0]!, { state: "zombie", plannedAgoMs: 125_500, startedAgoMs: 125_000, finishedAgoMs: 5_000 });
  await insertRunRow(pool, ids[0]!, { state: "running", plannedAgoMs: 30_300, startedAgoMs: 25_000 });
  await insertRunRow(pool, ids[1]!, { state: "queued", plannedAgoMs: 2_500 });
  await insertRunRow(pool, ids[1]!, { state: "retrying", plannedAgoMs: 3_599_000, startedAgoMs: 3_590_000, attempt: 2 });
  // Several runs in flight alike (the reader groups them before valuing them: each group must weigh its runs): waiting
  // ones of one state, and two retried the same way (same attempt, same lateness).
  for (const [i, state] of [
    [2, "queued"],
    [3, "queued"],
    [4, "planned"],
    [5, "planned"],
  ] as const) {
    await insertRunRow(pool, ids[i]!, { state, plannedAgoMs: 40_000 + i * 1000 });
  }
  for (const i of [4, 5]) await insertRunRow(pool, ids[i]!, { state: "retrying", plannedAgoMs: 50_000, startedAgoMs: 45_000, attempt: 3 });
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
  // A run cancelled before it was due, planned later in the current minute: the model's current minute holds it, the
  // window does not (the reader takes it back). Still ahead when first compared (the setup starts in a minute's first 40 s).
  const ahead = (
    await pool.query<{ ms: number }>(
      `SELECT (extract(epoch FROM date_trunc('minute', now()) + interval '59 seconds' - now()) * 1000)::float8 AS ms`,
    )
  ).rows[0]!.ms;
  await insertRunRow(pool, ids[3]!, { state: "cancelled", plannedAgoMs: -ahead, finishedAgoMs: 100 });
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
        "planned",
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
    // The history holds each kind of trouble (the seed's roll decides which schedule has which), so each counter is checked.
    expect(d.counters.size).toBe(6);
    for (const cls of CLASSES) expect([...d.counters.values()].reduce((n, c) => n + c[cls], 0)).toBeGreaterThan(0);
  });

  it("stay true when counted runs change state", async () => {
    const start = structuredClone(expectedCounters);
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
    // (Looked at before the delete: a run that enters hollow and is deleted in one interval is not in any recount.)
    const beforeDelete = structuredClone(await expectCounters());
    await pool.query(`DELETE FROM attempts WHERE run_id IN (SELECT id FROM runs WHERE schedule_id = $1)`, [ids[4]]);
    await pool.query(`DELETE FROM runs WHERE schedule_id = $1`, [ids[4]]);
    const d = await expectSame();
    // Runs left trouble (re-runs, a wider jitter, deleted runs) and others entered it: the counters only grew.
    for (const [schedule, c] of d.counters) for (const cls of CLASSES) expect(c[cls]).toBeGreaterThanOrEqual(start.get(schedule)![cls]);
    expect(d.counters.get("fleet-00005")!).toEqual(beforeDelete.get("fleet-00005"));
    expect([...d.counters.values()].reduce((n, c) => n + c.hollow, 0)).toBeGreaterThan(
      [...start.values()].reduce((n, c) => n + c.hollow, 0),
    );
  });

  it("a comparison that catches trouble counters the trigger no longer keeps", async () => {
    await pool.query(`DROP TRIGGER runs_trouble_update ON runs`);
    await pool.query(
      `UPDATE runs SET state = 'missed', updated_at = clock_timestamp() WHERE id IN (SELECT id FROM runs WHERE state = 'succeeded' AND planned_at > now() - interval '30 minutes' LIMIT 4)`,
    );
    const expected = await expectCounters();
    expect(asMap(await getScheduleTroubleCounters(pool))).not.toEqual(expected);
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
