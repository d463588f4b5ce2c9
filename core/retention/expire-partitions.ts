// Expires whole days of run_events / run_logs: a day partition older than the horizon is detached (CONCURRENTLY:
// inserts and reads of the parent go on) and dropped. Before that, the rows of runs that are kept (still running,
// queued, retrying, zombie, or a schedule with a longer retention) move to a later day's partition by
// `UPDATE … SET day` (row movement), so a kept run keeps its whole trace. Finding them reads the partition's
// run ids (an index-only scan) and probes `runs` by primary key: reads, no WAL.
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
}

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
      await client.query(`ALTER TABLE ${o.table} DETACH PARTITION ${p.name} FINALIZE`);
      await client.query(`DROP TABLE ${p.name}`);
      expired.push({ table: o.table, partition: p.name, day: p.day, rows: 0, movedRows: 0 });
      continue;
    }
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
    await client.query(`ALTER TABLE ${o.table} DETACH PARTITION ${p.name} CONCURRENTLY`);
    await client.query(`DROP TABLE ${p.name}`);
    expired.push({ table: o.table, partition: p.name, day: p.day, rows: kept.total - movedRows, movedRows });
  }
  return expired;
}

async function keptRuns(
  db: pg.PoolClient | pg.Client,
  o: ExpirePartitionsOptions,
  day: string,
): Promise<{ total: number; runs: { runId: string; target: string }[] }> {
  const unfinishedOnly = o.keep === "unfinished_runs";
  // target: the day whose partition expires (runsDays after it) no earlier than the run itself — today for a run
  // kept by its state, later for a schedule kept longer than the global setting.
  const { rows } = await db.query<{ total: string; kept: { runId: string; target: string }[] }>(
    `WITH e AS (SELECT run_id, count(*) AS n FROM ${o.table} WHERE day = $1::date GROUP BY run_id),
          k AS (SELECT e.run_id, r.target FROM e
                  JOIN LATERAL (
                    SELECT CASE WHEN $4 OR r.state = ANY($3::text[]) OR coalesce(s.retention_days, $2::int) = 0
                                THEN (now() AT TIME ZONE 'UTC')::date
                                ELSE greatest((now() AT TIME ZONE 'UTC')::date,
                                              (r.planned_at AT TIME ZONE 'UTC')::date + coalesce(s.retention_days, $2::int) - $2::int) END AS target
                      FROM runs r JOIN schedules s ON s.id = r.schedule_id
                     WHERE r.id = e.run_id AND (NOT $4 OR r.state = ANY($3::text[]))
                    OFFSET 0) r ON true)
     SELECT (SELECT coalesce(sum(n), 0) FROM e)::bigint AS total,
            (SELECT coalesce(json_agg(json_build_object('runId', run_id, 'target', to_char(target, 'YYYY-MM-DD'))), '[]') FROM k) AS kept`,
    [day, o.runsDays, NEVER_EXPIRED_STATES, unfinishedOnly],
  );
  return { total: Number(rows[0]!.total), runs: rows[0]!.kept };
}
