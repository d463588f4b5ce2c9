// Schedules and runs for execution tests, inserted with SQL and enqueued through sendRunJob exactly
// as the planner does (state 'queued' + job + NOTIFY in one transaction).
import crypto from "node:crypto";
import pg from "pg";
import type { PgBoss } from "pg-boss";
import { withTransaction } from "../core/db/pool";
import { startBoss } from "../core/queue/boss";
import { sendRunJob } from "../core/queue/send-run-job";
import { sendRunJobs } from "../core/queue/send-run-job";

export interface ScheduleFixture {
  handler: string;
  payload?: unknown;
  overlapPolicy?: "skip" | "buffer_one" | "allow" | "cancel_running";
  concurrencyGroup?: string | null;
  timeoutSeconds?: number;
  graceSeconds?: number;
  retryMaxAttempts?: number;
  retryBaseSeconds?: number;
  retryMaxSeconds?: number;
  expectRecordsMin?: number | null;
  startingDeadlineSeconds?: number;
}

const quiet = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} } as never;

export function startTestBoss(url: string): Promise<PgBoss> {
  return startBoss({ connectionString: url, log: quiet, supervise: false, max: 3 });
}

export async function insertSchedule(db: pg.Client | pg.Pool, s: ScheduleFixture): Promise<string> {
  const name = `t-${crypto.randomBytes(5).toString("hex")}`;
  if (s.concurrencyGroup) {
    await db.query(`INSERT INTO concurrency_groups (name, max_running) VALUES ($1, 1) ON CONFLICT (name) DO NOTHING`, [s.concurrencyGroup]);
  }
  const { rows } = await db.query(
    `INSERT INTO schedules (name, handler, payload, trigger, overlap_policy, concurrency_group, timeout_seconds, grace_seconds,
                            retry_max_attempts, retry_base_seconds, retry_max_seconds, expect_records_min, starting_deadline_seconds)
     VALUES ($1, $2, $3, '{"kind":"once","at":"2099-01-01T00:00:00Z"}', $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
    [
      name,
      s.handler,
      JSON.stringify(s.payload ?? {}),
      s.overlapPolicy ?? "allow",
      s.concurrencyGroup ?? null,
      s.timeoutSeconds ?? 30,
      s.graceSeconds ?? 1,
      s.retryMaxAttempts ?? 1,
      s.retryBaseSeconds ?? 1,
      s.retryMaxSeconds ?? 2,
      s.expectRecordsMin ?? null,
      s.startingDeadlineSeconds ?? 600,
    ],
  );
  return rows[0].id;
}

/** Inserts a planned run due inMs from now (database clock) and returns its id. Manual by default
 * (several may share a planned instant); 'scheduled' ones need distinct instants per schedule. */
export async function insertRun(
  db: pg.Client | pg.Pool,
  scheduleId: string,
  opts: { inMs?: number; payload?: unknown; kind?: "manual" | "scheduled" } = {},
): Promise<string> {
  const { rows } = await db.query(
    `WITH t AS (SELECT date_trunc('milliseconds', clock_timestamp() + make_interval(secs => $2::float8 / 1000.0)) AS at, gen_random_uuid() AS id)
     INSERT INTO runs (id, schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, payload, timeout_seconds, grace_seconds,
                       max_attempts, concurrency_group)
     SELECT t.id, s.id, $4, t.at, t.at,
            CASE WHEN $4 = 'manual' THEN 'manual:' || s.id || ':' || t.id ELSE s.id || ':' || to_char(t.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END,
            'planned', s.handler, coalesce($3::jsonb, s.payload), s.timeout_seconds, s.grace_seconds, s.retry_max_attempts, s.concurrency_group
       FROM schedules s, t WHERE s.id = $1
     RETURNING id`,
    [scheduleId, opts.inMs ?? 0, opts.payload === undefined ? null : JSON.stringify(opts.payload), opts.kind ?? "manual"],
  );
  return rows[0].id;
}

/** What the planner's enqueue does: job + state 'queued' + event, in one transaction. */
export async function enqueueRun(pool: pg.Pool, boss: PgBoss, runId: string): Promise<void> {
  await withTransaction(async (c) => {
    const { rows } = await c.query(
      `UPDATE runs r SET state = 'queued', enqueued_at = clock_timestamp()
        WHERE r.id = $1 AND r.state = 'planned'
       RETURNING r.handler, r.due_at, r.timeout_seconds, r.grace_seconds`,
      [runId],
    );
    const r = rows[0];
    if (r) {
      await sendRunJob(c, boss, {
        runId,
        handler: r.handler,
        attempt: 1,
        dueAt: r.due_at,
        timeoutSeconds: r.timeout_seconds,
        graceSeconds: r.grace_seconds,
      });
      await c.query(`INSERT INTO run_events (run_id, type, message) VALUES ($1, 'enqueued', 'test enqueue')`, [runId]);
    }
  }, pool);
}

/**
 * Many manual runs due inMs from now (or at `at`), queued in one statement, their jobs sent 500 per
 * statement the way the planner sends them (sendRunJobs).
 */
export async function createRuns(
  pool: pg.Pool,
  boss: PgBoss,
  scheduleId: string,
  count: number,
  opts: { inMs?: number; at?: Date } = {},
): Promise<string[]> {
  const { rows } = await pool.query(
    `WITH t AS (SELECT coalesce($4::timestamptz, date_trunc('milliseconds', clock_timestamp() + make_interval(secs => $2::float8 / 1000.0))) AS at)
     INSERT INTO runs AS r (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, payload, timeout_seconds, grace_seconds,
                            max_attempts, concurrency_group, enqueued_at)
     SELECT s.id, 'manual', t.at, t.at, 'manual:' || s.id || ':' || gen_random_uuid(), 'queued', s.handler, s.payload, s.timeout_seconds,
            s.grace_seconds, s.retry_max_attempts, s.concurrency_group, clock_timestamp()
       FROM schedules s, t, generate_series(1, $3::int) g WHERE s.id = $1
     RETURNING id, handler, due_at, timeout_seconds, grace_seconds`,
    [scheduleId, opts.inMs ?? 0, count, opts.at ?? null],
  );
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    await withTransaction(
      (c) =>
        sendRunJobs(
          c,
          boss,
          chunk.map((r) => ({
            runId: r.id,
            handler: r.handler,
            attempt: 1,
            wake: 0,
            dueAt: r.due_at,
            timeoutSeconds: r.timeout_seconds,
            graceSeconds: r.grace_seconds,
          })),
        ),
      pool,
    );
  }
  return rows.map((r) => r.id);
}

export async function createRun(
  pool: pg.Pool,
  boss: PgBoss,
  scheduleId: string,
  opts: { inMs?: number; payload?: unknown; kind?: "manual" | "scheduled" } = {},
): Promise<string> {
  const id = await insertRun(pool, scheduleId, opts);
  await enqueueRun(pool, boss, id);
  return id;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw rows read by tests
type Row = Record<string, any>;

export async function runState(db: pg.Pool | pg.Client, runId: string): Promise<Row> {
  const { rows } = await db.query(`SELECT * FROM runs WHERE id = $1`, [runId]);
  return rows[0];
}

export async function runEvents(
  db: pg.Pool | pg.Client,
  runId: string,
): Promise<{ type: string; at: Date; attempt: number | null; message: string; data: Row }[]> {
  const { rows } = await db.query(`SELECT type, at, attempt, message, data FROM run_events WHERE run_id = $1 ORDER BY at, id`, [runId]);
  return rows;
}

/** Resolves once the worker has started all its services (threads warm, dispatcher listening). */
export async function waitForWorkerReady(w: { logs: string[]; workerId: () => Promise<string> }): Promise<string> {
  const id = await w.workerId();
  const { waitFor } = await import("./wait-for");
  await waitFor("the worker to start its services", () => w.logs.some((l) => l.includes('"worker started"')), { timeoutMs: 90_000 });
  await waitFor("the worker's executor threads to warm up", () => w.logs.some((l) => l.includes('"executor threads warm"')), {
    timeoutMs: 90_000,
  });
  return id;
}
