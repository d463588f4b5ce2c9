// The hot statements' own read-model deltas (read-model-deltas.ts) are exactly what the runs UPDATE triggers write
// for the same row changes. A mixed batch — on time and late starts, a schedule's start jitter, backfill and re-run
// kinds, a retry, an overlap waiter, a group's runs, a run planned more than a day ago, a schedule whose last run is
// newer, a success the free path must leave (hollow) — goes through claimFreeRuns and finishFreeRuns; then the same
// row changes are replayed through the triggers from the same starting models, and every model is compared
// (deltas folded). The triggers' side changes every model, so a missing (or doubled) delta fails the comparison.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { testPool, useTestDatabase } from "../../test/db";
import { withTransaction } from "../db/pool";
import { jobIdFor } from "../queue/job-id";
import { aggregateFleet } from "../metrics/aggregate-fleet";
import { foldFleetDeltas } from "../metrics/fold-fleet-deltas";
import { readFleetRuns } from "../metrics/read-fleet-runs";
import type { HistogramCounts } from "../metrics/aggregate-runs";
import { getRunsOverview, getRunsOverviewDirect } from "./read/overview";
import { claimFreeRuns } from "./claim/claim-free-runs";
import { finishFreeRuns } from "./finish/finish-free-runs";
import type { FinishRequest } from "./finish/finish-run";
import { HOT_DELTAS_SETTING } from "./read-model-deltas";
import { waitFor } from "../../test/wait-for";

const db = useTestDatabase("read_model_deltas");
let pool: pg.Pool;

beforeAll(() => {
  pool = testPool(db.url);
});
afterAll(async () => {
  await pool?.end();
});

const WORKER = "w-deltas";
const MODELS = [
  "schedule_hourly_outcomes",
  "schedule_last_runs",
  "schedule_trouble_counters",
  "fleet_run_minutes",
  "fleet_attention_minutes",
];
const DELTAS = ["schedule_trouble_deltas", "fleet_run_minute_deltas", "fleet_attention_minute_deltas"];

async function schedule(
  name: string,
  opts: { overlap?: string; group?: string; jitterMs?: number; recordsMin?: number } = {},
): Promise<string> {
  if (opts.group)
    await pool.query(`INSERT INTO concurrency_groups (name, max_running) VALUES ($1, 50) ON CONFLICT DO NOTHING`, [opts.group]);
  const { rows } = await pool.query(
    `INSERT INTO schedules (name, handler, payload, trigger, overlap_policy, concurrency_group, starting_deadline_seconds, start_jitter_ms,
                            expect_records_min)
     VALUES ($1, 'demo.noop', '{}', '{"kind":"once","at":"2099-01-01T00:00:00Z"}', $2, $3, 200000, $4, $5) RETURNING id`,
    [name, opts.overlap ?? "allow", opts.group ?? null, opts.jitterMs ?? 0, opts.recordsMin ?? null],
  );
  return rows[0].id;
}

interface RunFixture {
  /** How long ago it was planned (negative: ahead). */
  agoMs: number;
  kind?: "scheduled" | "manual" | "backfill";
  reruns?: number;
  state?: "queued" | "retrying" | "running" | "succeeded";
  waitReason?: string;
  attempt?: number;
  startedAgoMs?: number;
  latenessMs?: number;
}

async function run(scheduleId: string, f: RunFixture): Promise<string> {
  const { rows } = await pool.query(
    `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, wait_reason, handler, timeout_seconds, grace_seconds,
                       max_attempts, concurrency_group, attempt, reruns, started_at, lateness_ms, finished_at, worker_id, enqueued_at)
     SELECT s.id, $2, p.at, p.at, 'deltas:' || gen_random_uuid(), $3, $4, s.handler, 60, 5, 3, s.concurrency_group, $5, $6,
            clock_timestamp() - $7::float8 * interval '1 millisecond', $8, CASE WHEN $3 = 'succeeded' THEN clock_timestamp() END,
            CASE WHEN $3 = 'running' THEN '${WORKER}' END, clock_timestamp()
       FROM schedules s, (SELECT date_trunc('milliseconds', clock_timestamp() - $9::float8 * interval '1 millisecond') AS at) p
      WHERE s.id = $1
     RETURNING id`,
    [
      scheduleId,
      f.kind ?? "manual",
      f.state ?? "queued",
      f.waitReason ?? null,
      f.attempt ?? 0,
      f.reruns ?? 0,
      f.startedAgoMs ?? null,
      f.latenessMs ?? null,
      f.agoMs,
    ],
  );
  return rows[0].id;
}

/** Every read model, its appended deltas folded first, as sorted JSON rows per table. */
async function models(): Promise<Record<string, unknown[]>> {
  expect(await foldFleetDeltas(pool)).toBeGreaterThanOrEqual(0);
  const out: Record<string, unknown[]> = {};
  for (const t of MODELS)
    out[t] = (await pool.query(`SELECT to_jsonb(x) AS j FROM ${t} x ORDER BY to_jsonb(x)::text`)).rows.map((r) => r.j);
  return out;
}

const consoleVersion = async (): Promise<number> =>
  Number((await pool.query(`SELECT last_value FROM vigil_console_version`)).rows[0].last_value);

/** The columns of `runs` but its id, for copying rows back and forth. */
async function runColumns(): Promise<string> {
  const { rows } = await pool.query(
    `SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) AS cols
       FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'runs' AND column_name <> 'id'`,
  );
  return rows[0].cols;
}

/** One UPDATE of `runs` (so one firing of its statement triggers) setting every row that differs from `to` to `to`'s values. */
async function updateRunsTo(db: pg.Pool | pg.PoolClient, to: string): Promise<number> {
  const cols = await runColumns();
  const { rowCount } = await db.query(
    `UPDATE runs r SET (${cols}) = (SELECT ${cols} FROM ${to} s WHERE s.id = r.id)
      WHERE r.id IN (SELECT s.id FROM ${to} s JOIN runs p ON p.id = s.id WHERE to_jsonb(s) <> to_jsonb(p))`,
  );
  return rowCount ?? 0;
}

const round = (h: HistogramCounts) => ({ ...h, sum: Math.round(h.sum * 1000) / 1000 });

describe("read-model deltas appended by the hot statements", () => {
  it("run with the hot-deltas setting on, which the runs UPDATE triggers check", async () => {
    const { rows } = await pool.query(
      `SELECT proname, prosrc FROM pg_proc WHERE proname IN ('vigil_claim_free_runs', 'vigil_finish_free_runs') ORDER BY proname`,
    );
    for (const r of rows) {
      expect(r.prosrc).toContain(`PERFORM set_config('${HOT_DELTAS_SETTING}', 'on', true);\n  RETURN QUERY`);
      expect(r.prosrc).toContain(`PERFORM set_config('${HOT_DELTAS_SETTING}', coalesce(v_setting_was, ''), true);\nEND`);
    }
    const { rows: triggers } = await pool.query(
      `SELECT p.proname FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
        WHERE t.tgrelid = 'runs'::regclass AND NOT t.tgisinternal AND (t.tgtype & 16) <> 0 ORDER BY 1`,
    );
    // Every UPDATE trigger on runs skips the hot statements' rows; a new one must too (or the statements write its model).
    expect(triggers.map((t) => t.proname)).toEqual(["vigil_runs_trouble_update_rows", "vigil_runs_update_summaries"]);
    for (const t of triggers) {
      const { rows: src } = await pool.query(`SELECT prosrc FROM pg_proc WHERE proname = $1`, [t.proname]);
      expect(src[0].prosrc).toContain(`IF current_setting('${HOT_DELTAS_SETTING}', true) = 'on' THEN\n    RETURN NULL;`);
    }
  });

  it("write for a mixed batch of starts and successes exactly what the triggers write for the same row changes", async () => {
    const a = await schedule("deltas-a");
    const b = await schedule("deltas-b-jitter", { jitterMs: 5000 });
    const c = await schedule("deltas-c-skip", { overlap: "skip" });
    const d = await schedule("deltas-d-group", { group: "deltas-group" });
    const e = await schedule("deltas-e-hollow", { recordsMin: 5 });
    const f = await schedule("deltas-f-old");
    const starts: { id: string; attempt: number }[] = [];
    const add = async (s: string, fx: RunFixture) => {
      const id = await run(s, fx);
      starts.push({ id, attempt: (fx.attempt ?? 0) + 1 });
      return id;
    };
    // On time: planned just ahead (and past before the successes: see below).
    await add(a, { agoMs: -800 });
    await add(a, { agoMs: 3_000, kind: "scheduled" });
    await add(a, { agoMs: 90_000 });
    await add(a, { agoMs: 2 * 3600_000 + 5_000 }); // another hour
    await add(a, { agoMs: 30_000, kind: "backfill" });
    await add(a, { agoMs: 31_000, reruns: 1 });
    // A retry (started late before: its late start is already counted), and an overlap waiter of a 'skip' schedule.
    await add(a, { agoMs: 35_000, state: "retrying", attempt: 1, startedAgoMs: 20_000, latenessMs: 15_000 });
    await add(c, { agoMs: 5_000, waitReason: "overlap" });
    const leftToLockedClaim = await add(c, { agoMs: 1_000 });
    await add(b, { agoMs: -800 });
    await add(b, { agoMs: 2_500 }); // late, within the jitter
    await add(b, { agoMs: 10_000 });
    await add(d, { agoMs: -800 });
    await add(d, { agoMs: 4_000 });
    const hollow = [await add(e, { agoMs: 8_000 }), await add(e, { agoMs: -800 })];
    const old = await add(f, { agoMs: 26 * 3600_000 }); // its fleet minute is older than the kept range
    // Schedule f's last run is newer than the old one that will succeed; schedule a has an hour outside every window.
    await run(f, { agoMs: 3700_000, state: "succeeded", attempt: 1, startedAgoMs: 3690_000, latenessMs: 10_000 });
    await pool.query(
      `INSERT INTO schedule_hourly_outcomes (schedule_id, hour, late) VALUES ($1, date_trunc('hour', now() - interval '9 days'), 1)`,
      [a],
    );

    // The starting point of both sides: runs and models.
    const m0 = await models();
    await pool.query(`CREATE TABLE r0 AS SELECT * FROM runs`);
    for (const t of [...MODELS, ...DELTAS]) await pool.query(`CREATE TABLE m0_${t} AS SELECT * FROM ${t}`);

    // The hot statements: two claim batches and one outcome batch, as a worker's dispatcher and finish batcher make them.
    const v0 = await consoleVersion();
    const req = (s: { id: string; attempt: number }) => ({
      runId: s.id,
      attempt: s.attempt,
      jobId: jobIdFor(s.id, s.attempt),
      workerId: WORKER,
    });
    const claimed = [...(await claimFreeRuns(pool, starts.slice(0, 8).map(req))), ...(await claimFreeRuns(pool, starts.slice(8).map(req)))];
    expect(claimed.filter((r) => r === undefined)).toHaveLength(1);
    expect(claimed[starts.findIndex((s) => s.id === leftToLockedClaim)]).toBeUndefined();
    expect(await consoleVersion()).toBe(v0 + 2);
    await pool.query(`CREATE TABLE r1 AS SELECT * FROM runs`);
    // A success only becomes a schedule's last run once planned: both sides must see the same runs as planned.
    await waitFor(
      "every run's planned instant to pass",
      async () => (await pool.query(`SELECT now() > max(planned_at) AS ok FROM runs`)).rows[0].ok,
    );

    const started = starts.filter((_, i) => claimed[i] !== undefined);
    const outcomes: FinishRequest[] = started.map((s, i) => ({
      runId: s.id,
      attempt: s.attempt,
      workerId: WORKER,
      jobId: jobIdFor(s.id, s.attempt),
      outcome: { kind: "succeeded", result: { records: hollow.includes(s.id) ? 0 : 7 } },
      durationMs: [3, 700, 70_000, 4_000_000][i % 4]!,
      endedAgoMs: (i % 3) * 400,
    }));
    const finished = await finishFreeRuns(pool, outcomes);
    // A hollow result is not the free path's: it goes to finishRuns, which records it under the full locks.
    expect(started.filter((_, i) => finished[i] === undefined).map((s) => s.id)).toEqual(hollow);
    expect(await consoleVersion()).toBe(v0 + 3);
    await pool.query(`CREATE TABLE r2 AS SELECT * FROM runs`);
    const byStatements = await models();

    // The models also equal a recount from runs (fleet counters and the console's overview of the last hour).
    const client = await pool.connect();
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
      const [recount, model] = [await aggregateFleet(client, 3600), await readFleetRuns(client, 3600)];
      const [overviewRecount, overview] = [await getRunsOverviewDirect(client), await getRunsOverview(client)];
      await client.query("COMMIT");
      const fleet = (x: typeof model) => ({
        byState: Object.fromEntries([...x.byState].filter(([, n]) => n !== 0).sort()),
        retries: x.retries,
        lateness: round(x.lateness),
        gap: round(x.gap),
        duration: round(x.duration),
      });
      expect(fleet(model)).toEqual(fleet(recount));
      expect(overview.lastHour).toEqual(overviewRecount.lastHour);
      expect(overview.lastHour.late).toBeGreaterThan(0);
    } finally {
      client.release();
    }

    // The triggers' side: the runs back as they were (unseen by the triggers), the models back as they were, then the
    // same changes as one UPDATE for the starts and one for the successes.
    await withTransaction(async (tx) => {
      await tx.query(`SELECT set_config('${HOT_DELTAS_SETTING}', 'on', true)`);
      await updateRunsTo(tx, "r0");
    }, pool);
    for (const t of [...MODELS, ...DELTAS]) await pool.query(`DELETE FROM ${t}; INSERT INTO ${t} SELECT * FROM m0_${t}`);
    expect(await models()).toEqual(m0);
    expect(await updateRunsTo(pool, "r1")).toBe(started.length);
    expect(await updateRunsTo(pool, "r2")).toBe(started.length - hollow.length);
    const byTriggers = await models();

    // Each model changed, so each comparison can fail.
    for (const t of MODELS) expect(byTriggers[t], t).not.toEqual(m0[t]);
    expect(byStatements).toEqual(byTriggers);
    // What the mix exercised: the old hour dropped; schedule f keeps its newer last run; schedule a's late starts
    // counted once each, backfills and re-runs not (the retry's at its insert, three by the claims).
    const { rows: kept } = await pool.query(
      `SELECT (SELECT count(*) FROM schedule_hourly_outcomes WHERE schedule_id = $1 AND hour < now() - interval '8 days')::int AS old_hours,
              (SELECT run_id FROM schedule_last_runs WHERE schedule_id = $2) <> $3 AS newer_kept,
              (SELECT late FROM schedule_trouble_counters WHERE schedule_id = $1)::int AS late_a`,
      [a, f, old],
    );
    expect(kept[0]).toEqual({ old_hours: 0, newer_kept: true, late_a: 4 });
  });

  it("leave a later update of runs in the same transaction, and one after a failed call rolled back to a savepoint, to the triggers", async () => {
    const s = await schedule("deltas-after");
    const late = await run(s, { agoMs: 20_000 });
    const running = [
      await run(s, { agoMs: 40_000, state: "running", attempt: 1, startedAgoMs: 39_800, latenessMs: 200 }),
      await run(s, { agoMs: 50_000, state: "running", attempt: 1, startedAgoMs: 49_800, latenessMs: 200 }),
    ];
    const fail = `UPDATE runs SET state = 'failed', finished_at = clock_timestamp(), updated_at = clock_timestamp() WHERE id = $1`;
    const setting = async (c: pg.PoolClient) =>
      (await c.query(`SELECT current_setting('${HOT_DELTAS_SETTING}', true) AS v`)).rows[0].v as string | null;
    const c = await pool.connect();
    try {
      await c.query("BEGIN");
      const { rows } = await c.query(`SELECT r FROM vigil_claim_free_runs($1::uuid[], $2::jsonb) AS r`, [
        [late],
        JSON.stringify({ worker: WORKER, reqs: [{ id: late, attempt: 1, job_id: jobIdFor(late, 1) }] }),
      ]);
      expect(rows).toHaveLength(1);
      expect(await setting(c)).not.toBe("on");
      await c.query(fail, [running[0]]);
      await c.query("SAVEPOINT before_call");
      await expect(
        c.query(`SELECT vigil_finish_free_runs($1::uuid[], '{"reqs": "not an array"}'::jsonb)`, [[running[1]]]),
      ).rejects.toThrow();
      await c.query("ROLLBACK TO SAVEPOINT before_call");
      expect(await setting(c)).not.toBe("on");
      await c.query(fail, [running[1]]);
      await c.query("COMMIT");
    } finally {
      c.release();
    }
    const { rows } = await pool.query(
      `SELECT sum(late)::int AS late, sum(failed)::int AS failed FROM schedule_trouble_deltas WHERE schedule_id = $1`,
      [s],
    );
    // The late start by the function, both failures by the trigger.
    expect(rows[0]).toEqual({ late: 1, failed: 2 });
  });
});
