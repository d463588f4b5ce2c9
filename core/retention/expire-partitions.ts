// Expires whole days of run_events / run_logs: a day partition older than the horizon is detached (CONCURRENTLY:
// inserts and reads of the parent go on) and dropped. Before that, the rows of runs that are kept (still running,
// queued, retrying, zombie, or a schedule with a longer retention) move to a later day's partition by
// `UPDATE … SET day` (row movement), so a kept run keeps its whole trace.
//
// WHICH RUNS CAN HAVE ROWS IN DAY D'S PARTITION. `day` is the UTC day a row was written (the column's default,
// clock_timestamp()), or, for a moved row, the day it was moved to. So a run has rows in D only if
//   (1) it wrote a row on D: it existed then, so runs.created_at (transaction start, before any of its rows) < end
//       of D; and it was planned at most the planner's horizon after its creation (only the planner creates runs
//       planned ahead: triggers are planned now, backfills in the past), so planned_at < end of D + horizon.
//       Its planned day may lie any number of days before D: a long-running run, a retry or a re-run, a run
//       started days late, a backfill;
//   (2) its rows were moved to D: by a pass on day D (the run existed on D: as (1)), or to its own expiry day
//       (planned day + schedule retention − global retention, never before its planned day: planned_at < end of D).
// Every such run that is still in `runs` (the runs step ran first: expired ones are gone) is found from `runs`
// itself, by a range of runs_planned_at_idx: planned_at < end of D + lead, created_at < end of D, where lead is
// twice the planner's horizon and at least an hour (a horizon lowered since is still covered). At the horizon that
// range holds the runs kept on purpose (unfinished, longer retention, finished after the cutoff, not yet summarized)
// and the first `lead` of the next day; the bulk of D's runs are already deleted. The partition itself is not read
// (the pass used to probe `runs` once per run id in it: 1.25 M probes a day at 10 M runs).
import type pg from "pg";
import { ensurePartitionDays, listDayPartitions, type PartitionedTable } from "./ensure-partitions";
import { NEVER_EXPIRED_STATES } from "./expire-runs";

export interface ExpirePartitionsOptions {
  table: PartitionedTable;
  /** Partitions of days before today − horizonDays expire. */
  horizonDays: number;
  /** Global run retention: a kept run's rows move to the day whose partition expires when the run does. */
  runsDays: number;
  /** Rows of which kept runs move: all runs still present (events), or only unfinished ones (logs). */
  keep: "existing_runs" | "unfinished_runs";
  /** The planner's horizon (VIGIL_PLAN_AHEAD_SECONDS): how far ahead of its creation a run can be planned. */
  planAheadSeconds: number;
}

/**
 * How long a partition's DETACH … CONCURRENTLY (or its FINALIZE) may wait, instead of the pass's short lock_timeout.
 * Its wait is for every transaction that was using the table when it began (a worker's claim or finish batch, seconds
 * long on a loaded machine), and meanwhile it holds only SHARE UPDATE EXCLUSIVE on the parent, which no insert or read
 * waits for. Under the pass's 2 s it failed instead, and the next pass's FINALIZE again (a 2 M-run bench sitting
 * failed five passes in a row). Its last step takes ACCESS EXCLUSIVE on the expired day's partition alone: only a
 * reader of that expiring day can wait behind it.
 */
export const DETACH_LOCK_TIMEOUT_MS = 60_000;

/** How far past the end of a day a run with rows written on that day can be planned (see the header). */
export const plannedAfterDaySeconds = (planAheadSeconds: number) => Math.max(3600, 2 * planAheadSeconds);

export interface ExpiredPartition {
  table: string;
  partition: string;
  day: string;
  rows: number;
  movedRows: number;
}

export async function expirePartitions(client: pg.PoolClient | pg.Client, o: ExpirePartitionsOptions): Promise<ExpiredPartition[]> {
  if (o.horizonDays <= 0) return [];
  const { rows: h } = await client.query<{ horizon: string }>(
    `SELECT to_char((now() AT TIME ZONE 'UTC')::date - $1::int, 'YYYY-MM-DD') AS horizon`,
    [o.horizonDays],
  );
  const horizon = h[0]!.horizon;
  const expired: ExpiredPartition[] = [];
  for (const p of await listDayPartitions(client, o.table)) {
    if (p.day >= horizon) break;
    if (p.detachPending) {
      // A previous pass was interrupted between the two phases of DETACH … CONCURRENTLY.
      await withDetachLockTimeout(client, () => client.query(`ALTER TABLE ${o.table} DETACH PARTITION ${p.name} FINALIZE`));
      await client.query(`DROP TABLE ${p.name}`);
      expired.push({ table: o.table, partition: p.name, day: p.day, rows: 0, movedRows: 0 });
      continue;
    }
    const rowsBefore = await estimatedRows(client, p.name);
    const kept = await keptRuns(client, o, p.day);
    await ensurePartitionDays(client, o.table, [...new Set(kept.runs.map((k) => k.target))]);
    let movedRows = 0;
    if (kept.runs.length > 0) {
      const { rowCount } = await client.query(
        `UPDATE ${o.table} t SET day = k.target
           FROM json_to_recordset($2::json) AS k(run_id uuid, target date)
          WHERE t.day = $1::date AND t.run_id = k.run_id`,
        [p.day, JSON.stringify(kept.runs.map((k) => ({ run_id: k.runId, target: k.target })))],
      );
      movedRows = rowCount ?? 0;
    }
    await withDetachLockTimeout(client, () => client.query(`ALTER TABLE ${o.table} DETACH PARTITION ${p.name} CONCURRENTLY`));
    await client.query(`DROP TABLE ${p.name}`);
    expired.push({ table: o.table, partition: p.name, day: p.day, rows: Math.max(0, rowsBefore - movedRows), movedRows });
  }
  return expired;
}

/** Runs `fn` with DETACH_LOCK_TIMEOUT_MS as the session's lock_timeout, then puts the session's own back. */
async function withDetachLockTimeout<T>(client: pg.PoolClient | pg.Client, fn: () => Promise<T>): Promise<T> {
  const { rows } = await client.query<{ was: string }>(
    `SELECT current_setting('lock_timeout') AS was, set_config('lock_timeout', $1, false)`,
    [`${DETACH_LOCK_TIMEOUT_MS}ms`],
  );
  try {
    return await fn();
  } finally {
    await client.query(`SELECT set_config('lock_timeout', $1, false)`, [rows[0]!.was]);
  }
}

/** The partition's row count as the planner knows it (pg_class.reltuples, kept by autovacuum/ANALYZE); counted if never analyzed. */
async function estimatedRows(db: pg.PoolClient | pg.Client, partition: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT CASE WHEN c.reltuples >= 0 THEN c.reltuples::bigint ELSE (SELECT count(*) FROM ${partition}) END AS n
       FROM pg_class c WHERE c.oid = $1::regclass`,
    [partition],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Runs still present that can have rows in the day's partition (see the header), with the day their rows move to. */
async function keptRuns(
  db: pg.PoolClient | pg.Client,
  o: ExpirePartitionsOptions,
  day: string,
): Promise<{ runs: { runId: string; target: string }[] }> {
  const unfinishedOnly = o.keep === "unfinished_runs";
  // target: the day whose partition expires (runsDays after it) no earlier than the run itself — today for a run
  // kept by its state, later for a schedule kept longer than the global setting.
  const { rows } = await db.query<{ run_id: string; target: string }>(
    `WITH d AS (SELECT (($1::date + 1)::timestamp AT TIME ZONE 'UTC') AS day_end)
     SELECT r.id AS run_id,
            to_char(CASE WHEN $4 OR r.state = ANY($3::text[]) OR coalesce(s.retention_days, $2::int) = 0
                         THEN (now() AT TIME ZONE 'UTC')::date
                         ELSE greatest((now() AT TIME ZONE 'UTC')::date,
                                       (r.planned_at AT TIME ZONE 'UTC')::date + coalesce(s.retention_days, $2::int) - $2::int) END,
                    'YYYY-MM-DD') AS target
       FROM d, runs r JOIN schedules s ON s.id = r.schedule_id
      WHERE r.planned_at < d.day_end + make_interval(secs => $5::int) AND r.created_at < d.day_end
        AND (NOT $4 OR r.state = ANY($3::text[]))`,
    [day, o.runsDays, NEVER_EXPIRED_STATES, unfinishedOnly, plannedAfterDaySeconds(o.planAheadSeconds)],
  );
  return { runs: rows.map((r) => ({ runId: r.run_id, target: r.target })) };
}
