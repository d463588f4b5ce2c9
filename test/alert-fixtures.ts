// Alert and metrics tests: schedules, runs and workers inserted by SQL, with times relative to the database clock, for tests
// that exercise what reads runs (alert rules, metrics) without driving the engines.
import crypto from "node:crypto";
import type { Queryable } from "../core/db/pool";

export interface AlertScheduleFixture {
  name?: string;
  latenessMaxMs?: number | null;
  latenessP95SloMs?: number | null;
  completionDeadlineSeconds?: number | null;
  expectRecordsMin?: number | null;
  failureAlertThreshold?: number | null;
  webhookUrl?: string | null;
  /** false keeps real workers' planners away from the schedule (tests that insert runs themselves). */
  enabled?: boolean;
}

export async function insertAlertSchedule(db: Queryable, f: AlertScheduleFixture = {}): Promise<{ id: string; name: string }> {
  const name = f.name ?? `s-${crypto.randomBytes(4).toString("hex")}`;
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO schedules (name, handler, trigger, lateness_max_ms, lateness_p95_slo_ms, completion_deadline_seconds,
                            expect_records_min, failure_alert_threshold, webhook_url, enabled)
     VALUES ($1, 'demo.noop', '{"kind":"interval","everySeconds":60}', $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [
      name,
      f.latenessMaxMs ?? null,
      f.latenessP95SloMs ?? null,
      f.completionDeadlineSeconds ?? null,
      f.expectRecordsMin ?? null,
      f.failureAlertThreshold ?? null,
      f.webhookUrl ?? null,
      f.enabled ?? true,
    ],
  );
  return { id: rows[0]!.id, name };
}

export interface RunRowFixture {
  state: string;
  /** Milliseconds before the database's now(). */
  plannedAgoMs: number;
  startedAgoMs?: number | null;
  finishedAgoMs?: number | null;
  records?: number | null;
  attempt?: number;
  kind?: "scheduled" | "manual" | "backfill";
  error?: string | null;
  workerId?: string | null;
}

export async function insertRunRow(db: Queryable, scheduleId: string, f: RunRowFixture): Promise<string> {
  const id = crypto.randomUUID();
  const ago = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : ms);
  await db.query(
    `INSERT INTO runs (id, schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds,
                       attempt, started_at, finished_at, lateness_ms, duration_ms, records, error, worker_id)
     SELECT $1::uuid, $2::uuid, $3, p.planned, p.planned, $1::text, $4, 'demo.noop', 60, 5, $5, st.at, fi.at,
            CASE WHEN st.at IS NULL THEN NULL ELSE (extract(epoch FROM st.at - p.planned) * 1000)::int END,
            CASE WHEN fi.at IS NULL OR st.at IS NULL THEN NULL ELSE (extract(epoch FROM fi.at - st.at) * 1000)::int END,
            $6, $7, $8
       FROM (SELECT now() - $9 * interval '1 millisecond' AS planned) p,
            (SELECT now() - $10 * interval '1 millisecond' AS at) st,
            (SELECT now() - $11 * interval '1 millisecond' AS at) fi`,
    [
      id,
      scheduleId,
      f.kind ?? "scheduled",
      f.state,
      f.attempt ?? (f.startedAgoMs === null || f.startedAgoMs === undefined ? 0 : 1),
      f.records ?? null,
      f.error ?? null,
      f.workerId ?? null,
      f.plannedAgoMs,
      ago(f.startedAgoMs),
      ago(f.finishedAgoMs),
    ],
  );
  return id;
}

export async function insertRunEvent(
  db: Queryable,
  runId: string,
  type: string,
  opts: { agoMs?: number; workerId?: string; attempt?: number } = {},
): Promise<void> {
  await db.query(
    `INSERT INTO run_events (run_id, type, attempt, worker_id, message, at) VALUES ($1, $2, $3, $4, '', clock_timestamp() - $5 * interval '1 millisecond')`,
    [runId, type, opts.attempt ?? 1, opts.workerId ?? null, opts.agoMs ?? 0],
  );
}

export async function insertWorker(
  db: Queryable,
  f: { heartbeatAgoMs: number; plannerLagMs?: number | null; state?: string },
): Promise<string> {
  const id = `test-worker-${crypto.randomBytes(3).toString("hex")}`;
  await db.query(
    `INSERT INTO workers (id, host, pid, version, state, heartbeat_at, planner_lag_ms)
     VALUES ($1, 'test-host', 1, '0.0.0', $2, clock_timestamp() - $3 * interval '1 millisecond', $4)`,
    [id, f.state ?? "running", f.heartbeatAgoMs, f.plannerLagMs ?? null],
  );
  return id;
}
