// What the workers page and the metrics show about work in the system right now: runs waiting to
// start (and why), running and retrying runs, pg-boss's own queue, live workers and planner lag.
// "Waiting to start" is what is due: the planner enqueues every occurrence up to its plan-ahead before its time, so
// counting those too made an idle, healthy fleet show a queue that never drains (1,000 one-a-minute schedules: ~500).
import type { Queryable } from "../db/pool";
import { RUN_QUEUE_PREFIX } from "../queue/boss";
import { planCursorSql } from "../runs/plan/plan-lag";

export interface QueueSummary {
  /** Queued runs that are due (due_at passed) and not started: the backlog. */
  runsQueued: number;
  /** Queued runs not due yet: the planner enqueues each occurrence ahead of its time, so a healthy fleet has some. */
  runsAhead: number;
  /** Queued runs held back by overlap or a concurrency limit (wait_reason set). */
  runsWaiting: number;
  runsRunning: number;
  runsRetrying: number;
  /** pg-boss jobs that may start now and are not fetched yet (created/retry), and being worked on; null when its schema is absent. */
  jobsQueued: number | null;
  /** pg-boss jobs whose start_after is still ahead (the runs enqueued ahead); null when its schema is absent. */
  jobsAhead: number | null;
  jobsActive: number | null;
  liveWorkers: number;
  plannerLag: { workerId: string; plannerLagMs: number }[];
  /** Live schedules not planned through now (never planned ones included): fires already due may have no row. */
  schedulesBehindPlan: number;
  openAlerts: number;
}

export async function getQueueSummary(db: Queryable, deadAfterMs: number): Promise<QueueSummary> {
  const [runs, jobs, workers, alerts, behind] = await Promise.all([
    db.query<{ queued: number; ahead: number; waiting: number; running: number; retrying: number }>(
      // Database clock: a run is due once its due_at (planned time plus jitter) has passed.
      `SELECT count(*) FILTER (WHERE state = 'queued' AND due_at <= now())::int AS queued,
              count(*) FILTER (WHERE state = 'queued' AND due_at > now())::int AS ahead,
              count(*) FILTER (WHERE state = 'queued' AND wait_reason IS NOT NULL)::int AS waiting,
              count(*) FILTER (WHERE state = 'running')::int AS running,
              count(*) FILTER (WHERE state = 'retrying')::int AS retrying
         FROM runs WHERE state IN ('queued', 'running', 'retrying')`,
    ),
    db
      .query<{ queued: number | null; ahead: number | null; active: number | null }>(
        `SELECT count(*) FILTER (WHERE state IN ('created', 'retry') AND start_after <= now())::int AS queued,
                count(*) FILTER (WHERE state IN ('created', 'retry') AND start_after > now())::int AS ahead,
                count(*) FILTER (WHERE state = 'active')::int AS active
           FROM pgboss.job
          WHERE name = ANY(ARRAY(SELECT $1 || h.name FROM handlers h)) AND state IN ('created', 'retry', 'active')`,
        [RUN_QUEUE_PREFIX],
      )
      // Before the first worker starts, pg-boss's schema does not exist yet.
      .catch((err: { code?: string }) => {
        if (err.code === "42P01" || err.code === "3F000") return { rows: [{ queued: null, ahead: null, active: null }] };
        throw err;
      }),
    db.query<{ id: string; planner_lag_ms: number | null }>(
      `SELECT id, planner_lag_ms FROM workers
        WHERE stopped_at IS NULL AND state <> 'stopped'
          AND heartbeat_at > clock_timestamp() - make_interval(secs => $1 / 1000.0)
        ORDER BY id`,
      [deadAfterMs],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM alerts WHERE resolved_at IS NULL`),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM schedules s WHERE s.deleted_at IS NULL AND ${planCursorSql("s")} < now()`),
  ]);
  const r = runs.rows[0]!;
  return {
    runsQueued: r.queued,
    runsAhead: r.ahead,
    runsWaiting: r.waiting,
    runsRunning: r.running,
    runsRetrying: r.retrying,
    jobsQueued: jobs.rows[0]!.queued,
    jobsAhead: jobs.rows[0]!.ahead,
    jobsActive: jobs.rows[0]!.active,
    liveWorkers: workers.rows.length,
    plannerLag: workers.rows.filter((w) => w.planner_lag_ms !== null).map((w) => ({ workerId: w.id, plannerLagMs: w.planner_lag_ms! })),
    schedulesBehindPlan: behind.rows[0]!.n,
    openAlerts: alerts.rows[0]!.n,
  };
}
