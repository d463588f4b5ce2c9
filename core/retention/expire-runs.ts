// Finished runs older than their schedule's retention go, in small batches by index (runs_schedule_id_planned_at_idx),
// each batch its own short transaction; their attempts go with them (attempts_run_id_fkey cascades), their events
// and log lines with the day partitions (expire-partitions.ts). `runs` is not partitioned: see migration
// 20261202500000_retention_partitions for why.
import type pg from "pg";

/** States a run is never removed in, however old: it is not finished (or, zombie, an operator must still see it). */
export const NEVER_EXPIRED_STATES = ["planned", "queued", "running", "retrying", "zombie"] as const;

/** SQL: UTC midnight `days` days before today's UTC day, as timestamptz. */
export const utcCutoffSql = (daysExpr: string) => `(((now() AT TIME ZONE 'UTC')::date - ${daysExpr})::timestamp AT TIME ZONE 'UTC')`;

export interface ExpireRunsOptions {
  defaultDays: number;
  batchSize: number;
  /** Runs planned on or after this UTC day are never deleted: their day is not summarized yet. */
  summarizedBefore: string;
  /**
   * Pacing (a duty cycle): after each full batch, wait pauseRatio × that batch's own duration (at most maxPauseMs)
   * before the next. A batch keeps a core busy and writes WAL that every committing claim must wait behind; the
   * pause hands both back to the workers, so a pass takes longer and starts stay on time (README "Retention").
   */
  pauseRatio?: number;
  maxPauseMs?: number;
}

export interface ExpireRunsResult {
  runs: number;
  triggerRequests: number;
  /** DELETE statements run, and the time spent pausing between them (ms). */
  batches: number;
  pausedMs: number;
}

export async function expireRuns(db: pg.PoolClient | pg.Client, o: ExpireRunsOptions): Promise<ExpireRunsResult> {
  const { rows: schedules } = await db.query<{ id: string; days: number }>(
    `SELECT id, coalesce(retention_days, $1::int) AS days FROM schedules WHERE coalesce(retention_days, $1::int) > 0`,
    [o.defaultDays],
  );
  // One statement deletes up to batchSize runs across the schedules (each schedule's range of
  // runs_schedule_id_planned_at_idx below its own cutoff, in turn, until the batch is full), in its own short
  // transaction, and is repeated until a batch comes back short: a statement per schedule cost a round trip and a
  // run of the runs triggers each, 1,000 a pass (the bench's runs step was ×5.8 a plain 5,000-run DELETE).
  // Each statement starts at the last schedule the previous one reached (RETURNING its position): the schedules
  // before it are done, and scanning their ranges again would walk every index entry just deleted (not vacuumed
  // yet) once per statement. Were a plan to visit the schedules out of order, one left behind waits for the next
  // pass: nothing is deleted that should not be.
  // The state and finish conditions are repeated on the DELETE itself: a run re-run (back to queued) between the
  // subquery's snapshot and the DELETE's row lock is re-checked on its new version there and kept (a LIMITed
  // subquery's result is not re-evaluated). The runs that stay are the ones expire-partitions.ts keeps rows for.
  let runs = 0;
  const ids = schedules.map((s) => s.id);
  const days = schedules.map((s) => s.days);
  let from = 1;
  let batches = 0;
  let pausedMs = 0;
  while (ids.length > 0) {
    const b0 = performance.now();
    const { rows } = await db.query<{ n: string }>(
      `DELETE FROM runs r
         USING (SELECT x.id, c.cutoff, s.n
                  FROM unnest($1::uuid[], $2::int[]) WITH ORDINALITY AS s(id, days, n)
                 CROSS JOIN LATERAL (SELECT ${utcCutoffSql("s.days")} AS cutoff) c
                 CROSS JOIN LATERAL (
                   SELECT id FROM runs
                    WHERE schedule_id = s.id AND planned_at < least(c.cutoff, $3::date::timestamp AT TIME ZONE 'UTC')
                      AND state <> ALL($4::text[]) AND (finished_at IS NULL OR finished_at < c.cutoff)
                    LIMIT $5) x
                 WHERE s.n >= $6
                 LIMIT $5) k
        WHERE r.id = k.id AND r.state <> ALL($4::text[]) AND (r.finished_at IS NULL OR r.finished_at < k.cutoff)
        RETURNING k.n`,
      [ids, days, o.summarizedBefore, NEVER_EXPIRED_STATES, o.batchSize, from],
    );
    batches++;
    runs += rows.length;
    if (rows.length < o.batchSize) break;
    from = rows.reduce((m, r) => Math.max(m, Number(r.n)), from);
    // The pause is measured with the monotonic clock: it paces this process's own work, it decides nothing.
    const pause = Math.min((performance.now() - b0) * (o.pauseRatio ?? 0), o.maxPauseMs ?? 5000);
    if (pause >= 1) {
      const p0 = performance.now();
      await new Promise((r) => setTimeout(r, pause));
      pausedMs += performance.now() - p0;
    }
  }
  let triggerRequests = 0;
  if (o.defaultDays > 0) {
    const { rowCount } = await db.query(`DELETE FROM trigger_requests WHERE created_at < ${utcCutoffSql("$1::int")}`, [o.defaultDays]);
    triggerRequests = rowCount ?? 0;
  }
  return { runs, triggerRequests, batches, pausedMs: Math.round(pausedMs) };
}
