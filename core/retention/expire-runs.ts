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
}

export async function expireRuns(db: pg.PoolClient | pg.Client, o: ExpireRunsOptions): Promise<{ runs: number; triggerRequests: number }> {
  const { rows: schedules } = await db.query<{ id: string; days: number }>(
    `SELECT id, coalesce(retention_days, $1::int) AS days FROM schedules WHERE coalesce(retention_days, $1::int) > 0`,
    [o.defaultDays],
  );
  let runs = 0;
  // Several schedules' small deletes share one short transaction (up to batchSize rows): a commit per schedule
  // would cost a WAL flush each, thousands per pass.
  let pending = 0;
  await db.query("BEGIN");
  try {
    for (const s of schedules) {
      for (;;) {
        const { rowCount } = await db.query(
          `DELETE FROM runs WHERE id IN (
             SELECT id FROM runs
              WHERE schedule_id = $1 AND planned_at < least(${utcCutoffSql("$2::int")}, $3::date::timestamp AT TIME ZONE 'UTC')
                AND state <> ALL($4::text[]) AND (finished_at IS NULL OR finished_at < ${utcCutoffSql("$2::int")})
              LIMIT $5)`,
          [s.id, s.days, o.summarizedBefore, NEVER_EXPIRED_STATES, o.batchSize - pending],
        );
        const n = rowCount ?? 0;
        runs += n;
        pending += n;
        if (pending >= o.batchSize) {
          await db.query("COMMIT");
          await db.query("BEGIN");
          pending = 0;
          continue;
        }
        break;
      }
    }
    await db.query("COMMIT");
  } catch (err) {
    await db.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
  let triggerRequests = 0;
  if (o.defaultDays > 0) {
    const { rowCount } = await db.query(`DELETE FROM trigger_requests WHERE created_at < ${utcCutoffSql("$1::int")}`, [o.defaultDays]);
    triggerRequests = rowCount ?? 0;
  }
  return { runs, triggerRequests };
}
