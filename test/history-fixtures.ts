// Back-dated run history written in bulk with generate_series (retention tests, the upgrade test, the retention
// bench): for one UTC day, every given schedule gets a run every `everySeconds`, with its attempt, three events
// (planned, started, finished) and `logsPerRun` handler log lines, written as they would have been on that day.
// Outcomes cycle through the finished states so the daily summaries have something of each to count.
import type pg from "pg";

export interface HistoryDayOptions {
  /** UTC midnight of the day, as 'YYYY-MM-DD'. */
  day: string;
  scheduleIds: string[];
  everySeconds: number;
  logsPerRun?: number;
  /** After the partitioning migration rows carry `day`; before it the column does not exist. */
  partitioned: boolean;
  /** Only the runs planned at or after this instant (the day's others are left out; states as in the whole day). */
  since?: Date;
}

type Db = pg.Pool | pg.Client | pg.PoolClient;

/**
 * Writes one day of history in one statement (the runs' RETURNING feeds their attempts, events and log lines, so
 * nothing is looked up again: a bulk load without the runs' indexes stays a sequential write); returns the number
 * of runs written.
 */
export async function fillHistoryDay(db: Db, o: HistoryDayOptions): Promise<number> {
  const dayCol = o.partitioned ? ", day" : "";
  const dayVal = o.partitioned ? ", $1::date" : "";
  const { rows } = await db.query<{ n: number }>(
    `WITH r AS (
       INSERT INTO runs (id, schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, payload, timeout_seconds,
                         grace_seconds, attempt, enqueued_at, started_at, finished_at, heartbeat_at, lateness_ms, duration_ms, records, created_at)
       SELECT gen_random_uuid(), s.id, 'scheduled', g.t, g.t, s.id || ':' || to_char(g.t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
              CASE WHEN g.n % 50 = 0 THEN 'failed' WHEN g.n % 50 = 1 THEN 'missed' WHEN g.n % 50 = 2 THEN 'hollow'
                   WHEN g.n % 50 = 3 THEN 'skipped_overlap' ELSE 'succeeded' END,
              s.handler, '{}', 30, 1,
              CASE WHEN g.n % 50 IN (1, 3) THEN 0 ELSE 1 END,
              g.t, CASE WHEN g.n % 50 IN (1, 3) THEN NULL ELSE g.t + (g.n % 2000) * interval '1 ms' END,
              g.t + interval '1 second', g.t + interval '1 second',
              CASE WHEN g.n % 50 IN (1, 3) THEN NULL ELSE (g.n % 2000)::int END, 20, 1, g.t - interval '1 minute'
         FROM schedules s,
              generate_series($1::date::timestamptz, $1::date::timestamptz + interval '1 day' - interval '1 ms',
                              make_interval(secs => $2)) WITH ORDINALITY g(t, n)
        WHERE s.id = ANY($3::uuid[]) AND ($5::timestamptz IS NULL OR g.t >= $5::timestamptz)
       RETURNING id, state, attempt, planned_at, started_at, finished_at),
     a AS (
       INSERT INTO attempts (run_id, number, state, worker_id, started_at, heartbeat_at, finished_at, duration_ms, records)
       SELECT r.id, 1, CASE WHEN r.state = 'hollow' THEN 'succeeded' ELSE r.state END, 'w-history', r.started_at, r.finished_at,
              r.finished_at, 20, 1 FROM r WHERE r.attempt = 1),
     e AS (
       INSERT INTO run_events (run_id, type, message, at${dayCol})
       SELECT r.id, e.type, e.type, r.planned_at + e.off * interval '1 ms'${dayVal}
         FROM r, (VALUES ('planned', -60000), ('started', 5), ('finished', 900)) e(type, off)),
     l AS (
       INSERT INTO run_logs (run_id, attempt, level, message, at${dayCol})
       SELECT r.id, 1, 'info', 'line ' || i, r.planned_at + i * interval '1 ms'${dayVal} FROM r, generate_series(1, $4::int) i)
     SELECT count(*)::int AS n FROM r`,
    [o.day, o.everySeconds, o.scheduleIds, o.logsPerRun ?? 1, o.since?.toISOString() ?? null],
  );
  return rows[0]?.n ?? 0;
}

/** Inserts `n` schedules (interval trigger, handler demo.noop, disabled so no planner fires them); returns their ids. */
export async function insertHistorySchedules(db: Db, n: number, prefix = "hist"): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO schedules (name, handler, trigger, enabled)
     SELECT $2 || '-' || i, 'demo.noop', '{"kind":"interval","everySeconds":60}', false FROM generate_series(1, $1::int) i
     RETURNING id`,
    [n, prefix],
  );
  return rows.map((r) => r.id);
}
