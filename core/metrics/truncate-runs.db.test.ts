// TRUNCATE runs fires no row trigger, so the read models derived from runs (the fleet minutes and their deltas, the
// schedules list's hourly outcomes and last runs) kept counting runs that no longer exist: the header, the metrics
// and the schedules list showed history that was gone. A statement-level TRUNCATE trigger empties them
// (migration 20261204200000_console_feed_gaps); afterwards they count new runs as before.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testPool, useTestDatabase } from "@/test/db";
import { seedScheduleHistory } from "@/test/seed-history";
import { insertRunRow } from "@/test/alert-fixtures";
import { foldFleetDeltas } from "./fold-fleet-deltas";
import { aggregateFleet } from "./aggregate-fleet";
import { readFleetRuns } from "./read-fleet-runs";
import { getScheduleTroubleCounters } from "./get-schedule-trouble-counters";
import { getRunsOverview, getRunsOverviewDirect } from "../runs/read/overview";
import { getConsoleVersion } from "../console/console-version";

const db = useTestDatabase("truncate_runs");
let pool: ReturnType<typeof testPool>;
let ids: string[] = [];

const MODELS = [
  "fleet_run_minutes",
  "fleet_run_minute_deltas",
  "fleet_attention_minutes",
  "fleet_attention_minute_deltas",
  "schedule_hourly_outcomes",
  "schedule_last_runs",
];

async function modelRows(): Promise<Record<string, number>> {
  const { rows } = await pool.query<Record<string, string>>(
    `SELECT ${MODELS.map((t) => `(SELECT count(*) FROM ${t}) AS ${t}`).join(", ")}`,
  );
  return Object.fromEntries(Object.entries(rows[0]!).map(([k, v]) => [k, Number(v)]));
}

async function modelAndDirect() {
  const c = await pool.connect();
  try {
    await c.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
    const direct = await aggregateFleet(c, 3600);
    const model = await readFleetRuns(c, 3600);
    const overview = await getRunsOverview(c);
    const overviewDirect = await getRunsOverviewDirect(c);
    await c.query("COMMIT");
    const states = (m: Map<string, number>) => Object.fromEntries([...m].filter(([, n]) => n !== 0).sort());
    return {
      model: { byState: states(model.byState), overview: overview.lastHour },
      direct: { byState: states(direct.byState), overview: overviewDirect.lastHour },
    };
  } finally {
    c.release();
  }
}

beforeAll(async () => {
  pool = testPool(db.url);
  ({ ids } = await seedScheduleHistory(pool, { prefix: "trunc-", schedules: 3, hours: 2 }));
  // Part folded into the minute rows, part still appended as deltas (what a worker's fold leaves between two folds).
  await foldFleetDeltas(pool);
  await insertRunRow(pool, ids[0]!, { state: "failed", plannedAgoMs: 120_000, startedAgoMs: 119_000, finishedAgoMs: 60_000 });
  await insertRunRow(pool, ids[1]!, { state: "succeeded", plannedAgoMs: 90_000, startedAgoMs: 30_000, finishedAgoMs: 20_000 });
}, 120_000);

afterAll(async () => {
  await pool?.end();
});

describe("TRUNCATE runs", () => {
  it("empties the read models derived from runs, so the header, the metrics and the schedules list count nothing", async () => {
    const before = await modelRows();
    for (const t of MODELS) expect(before[t], t).toBeGreaterThan(0);
    const seen = await modelAndDirect();
    expect(seen.model).toEqual(seen.direct);
    expect(seen.model.overview.failed).toBeGreaterThan(0);
    const version = await getConsoleVersion(pool);
    // The per-schedule trouble counters count events that happened (read with increase()): a TRUNCATE does not undo them.
    const totals = async () => (await getScheduleTroubleCounters(pool)).reduce((n, t) => n + t.missed + t.hollow + t.failed + t.late, 0);
    const countersBefore = await totals();
    expect(countersBefore).toBeGreaterThan(0);

    // CASCADE: the runs' events, attempts and logs go with them.
    await pool.query("TRUNCATE runs CASCADE");

    expect(await modelRows()).toEqual(Object.fromEntries(MODELS.map((t) => [t, 0])));
    const after = await modelAndDirect();
    expect(after.model).toEqual(after.direct);
    expect(after.model.overview).toEqual({ late: 0, missed: 0, hollow: 0, zombie: 0, failed: 0 });
    expect(after.model.byState).toEqual({});
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM schedule_last_runs`);
    expect(rows[0].n).toBe(0);
    // The console's conditional reads (ETag) and its change stream see it.
    expect(await getConsoleVersion(pool)).not.toBe(version);
    expect(await totals()).toBe(countersBefore);
  });

  it("counts new runs again afterwards, as before", async () => {
    await insertRunRow(pool, ids[2]!, { state: "missed", plannedAgoMs: 200_000 });
    await insertRunRow(pool, ids[2]!, { state: "hollow", plannedAgoMs: 100_000, startedAgoMs: 99_000, finishedAgoMs: 98_000 });
    const now = await modelAndDirect();
    expect(now.model).toEqual(now.direct);
    expect(now.model.overview.missed + now.model.overview.hollow).toBe(2);
    await foldFleetDeltas(pool);
    const folded = await modelAndDirect();
    expect(folded.model).toEqual(folded.direct);
  });
});
