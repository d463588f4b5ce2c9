// One retention pass: partitions ahead, daily summaries, expired runs, expired day partitions, the small tables,
// pg-boss's job retention; then one audit row for what it removed and the outcome in retention_status (the Workers
// page). One worker at a time (a session advisory lock on a dedicated connection; the others skip the pass), every
// statement under a short lock_timeout and in small batches, so a pass never holds up claims or the console: a step
// that cannot get its lock fails the pass, which the next pass resumes (every step works from the current state,
// so a missed maintenance window catches up by itself).
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import { recordAudit } from "../audit/record-audit";
import { systemActor } from "../auth/roles";
import { ensureDayPartitions } from "./ensure-partitions";
import { expirePartitions, type ExpiredPartition } from "./expire-partitions";
import { expireRuns } from "./expire-runs";
import { expireSideTables, type SideTablesExpired } from "./expire-side-tables";
import { effectiveLogsDays, walBoundSql, YIELD_MARGIN_MS, type RetentionSettings } from "./retention-settings";
import { rollUpDailySummaries } from "./roll-up-daily-summaries";
import { applyJobRetention } from "./job-retention";

export const RETENTION_LOCK_KEY = 746350;

export interface RetentionReport {
  partitionsCreated: string[];
  summaries: { days: number; rows: number };
  runs: number;
  triggerRequests: number;
  /** The runs step's DELETE statements and its pauses between them (ms, included in stepMs.runs and durationMs). */
  runBatches: number;
  pausedMs: number;
  /** Of pausedMs, the time the runs step waited for gaps between the fleet's firings, and before how many batches. */
  yieldedMs: number;
  yields: number;
  partitionsDropped: ExpiredPartition[];
  sideTables: SideTablesExpired;
  jobQueuesUpdated: number;
  durationMs: number;
  /** Where the time went: summaries, runs (batched DELETE), partitions (move kept rows, detach, drop), the rest. */
  stepMs: { summaries: number; runs: number; partitions: number; sideTables: number };
  /** WAL written by the runs and partitions steps (bytes; other sessions' WAL included). */
  stepWalBytes: { runs: number; partitions: number };
  /** The runs step's WAL bound this pass (bytes/s; 0 = none), "auto" resolved from the server's settings. */
  walBoundBytesPerSecond: number;
}

/** Runs a pass unless another worker holds the retention lock (then null). */
export async function runRetention(
  pool: pg.Pool,
  settings: RetentionSettings,
  opts: { workerId: string; boss?: PgBoss },
): Promise<RetentionReport | null> {
  const client = await pool.connect();
  let locked = false;
  try {
    locked = (await client.query(`SELECT pg_try_advisory_lock($1) AS ok`, [RETENTION_LOCK_KEY])).rows[0].ok;
    if (!locked) return null;
    // synchronous_commit (off by default): the pass's commits never wait on a WAL flush (see RetentionSettings).
    await client.query(
      `SELECT set_config('lock_timeout', $1, false), set_config('application_name', 'vigil-retention', false),
              set_config('synchronous_commit', $2, false)`,
      [`${settings.lockTimeoutMs}ms`, settings.synchronousCommit ?? "off"],
    );
    const t0 = performance.now();
    const { rows: st } = await client.query(
      `INSERT INTO retention_status (id, settings, worker_id, started_at, error) VALUES (true, $1, $2, clock_timestamp(), NULL)
       ON CONFLICT (id) DO UPDATE SET settings = EXCLUDED.settings, worker_id = EXCLUDED.worker_id, started_at = EXCLUDED.started_at
       RETURNING result->>'summarizedBefore' AS summarized_before`,
      [JSON.stringify(settings), opts.workerId],
    );
    // The step a failure happened in goes into its message (retention_status, the Workers page, the worker's log).
    let step = "partitions ahead";
    try {
      const partitionsCreated = await ensureDayPartitions(client, settings.partitionsAheadDays);
      const t1 = performance.now();
      step = "daily summaries";
      const sum = await rollUpDailySummaries(client, { fromDay: st[0]?.summarized_before ?? null, defaultRunsDays: settings.runsDays });
      const t2 = performance.now();
      const lsn = async () => (await client.query(`SELECT pg_current_wal_lsn()::text AS l`)).rows[0].l as string;
      const walDiff = async (from: string) =>
        Number((await client.query(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint AS b`, [from])).rows[0].b);
      const w2 = await lsn();
      const walBound =
        settings.maxWalMbPerSecond === "auto"
          ? Number((await client.query<{ b: number }>(walBoundSql)).rows[0]!.b)
          : (settings.maxWalMbPerSecond ?? 0) * 1024 * 1024;
      step = "runs";
      const runs = await expireRuns(client, {
        defaultDays: settings.runsDays,
        batchSize: settings.batchSize,
        summarizedBefore: sum.summarizedBefore,
        pauseRatio: settings.pauseRatio,
        maxPauseMs: settings.maxPauseMs,
        maxWalBytesPerSecond: walBound,
        // Older settings objects (a bench's, a retention_status row's) have no yieldToRuns: on, as the env's default.
        yieldToRuns: settings.yieldToRuns === "off" ? undefined : { marginMs: YIELD_MARGIN_MS, maxWaitMs: settings.maxPauseMs },
      });
      const t3 = performance.now();
      const walRuns = await walDiff(w2);
      const w3 = await lsn();
      step = "day partitions";
      const partitionsDropped = [
        ...(await expirePartitions(client, {
          table: "run_events",
          horizonDays: settings.runsDays,
          runsDays: settings.runsDays,
          keep: "existing_runs",
          planAheadSeconds: settings.planAheadSeconds,
        })),
        ...(await expirePartitions(client, {
          table: "run_logs",
          horizonDays: effectiveLogsDays(settings),
          runsDays: settings.runsDays,
          keep: "unfinished_runs",
          planAheadSeconds: settings.planAheadSeconds,
        })),
      ];
      const t4 = performance.now();
      const walPartitions = await walDiff(w3);
      step = "side tables";
      const sideTables = await expireSideTables(client, settings);
      const t5 = performance.now();
      step = "job retention";
      const jobQueuesUpdated = opts.boss ? await applyJobRetention(opts.boss, settings.jobsDays) : 0;
      const report: RetentionReport = {
        partitionsCreated,
        summaries: { days: sum.days, rows: sum.rows },
        runs: runs.runs,
        triggerRequests: runs.triggerRequests,
        runBatches: runs.batches,
        pausedMs: runs.pausedMs,
        yieldedMs: runs.yieldedMs,
        yields: runs.yields,
        partitionsDropped,
        sideTables,
        jobQueuesUpdated,
        durationMs: Math.round(performance.now() - t0),
        stepMs: {
          summaries: Math.round(t2 - t1),
          runs: Math.round(t3 - t2),
          partitions: Math.round(t4 - t3),
          sideTables: Math.round(t5 - t4),
        },
        stepWalBytes: { runs: walRuns, partitions: walPartitions },
        walBoundBytesPerSecond: Math.round(walBound),
      };
      const removed =
        report.runs + report.triggerRequests + partitionsDropped.length + Object.values(sideTables).reduce((a, n) => a + n, 0) > 0;
      if (removed) {
        // The audit trail itself is kept forever (README "Retention"); what retention removed is recorded in it.
        await recordAudit(client, {
          actor: systemActor(`retention (worker ${opts.workerId})`),
          action: "retention.expire",
          targetType: "system",
          targetId: "retention",
          after: {
            runs: report.runs,
            triggerRequests: report.triggerRequests,
            partitions: partitionsDropped.map((p) => ({ partition: p.partition, rows: p.rows, movedRows: p.movedRows })),
            ...sideTables,
            settings: { runsDays: settings.runsDays, logsDays: effectiveLogsDays(settings) },
          },
        });
      }
      await client.query(`UPDATE retention_status SET finished_at = clock_timestamp(), result = $1, error = NULL WHERE id`, [
        JSON.stringify({ ...report, summarizedBefore: sum.summarizedBefore }),
      ]);
      return report;
    } catch (err) {
      if (err instanceof Error) err.message = `${step} step: ${err.message}`;
      await client
        .query(`UPDATE retention_status SET error = $1, finished_at = clock_timestamp() WHERE id`, [(err as Error).message])
        .catch(() => undefined);
      throw err;
    }
  } finally {
    if (locked) await client.query(`SELECT pg_advisory_unlock($1)`, [RETENTION_LOCK_KEY]).catch(() => undefined);
    await client.query(`RESET lock_timeout; RESET application_name; RESET synchronous_commit`).catch(() => undefined);
    client.release();
  }
}
