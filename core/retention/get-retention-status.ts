// What the Workers page shows about retention: the settings the workers apply (as the last pass recorded them;
// before any pass, this process's own env) and what the last pass did.
import type { Queryable } from "../db/pool";
import { getEnv } from "../env";
import { retentionSettingsFromEnv, type RetentionSettings } from "./retention-settings";

export interface RetentionStatus {
  settings: RetentionSettings;
  /** Where the settings come from: the last pass of a worker, or this console's env (no pass yet). */
  settingsFrom: "worker" | "console";
  lastPass: {
    workerId: string | null;
    startedAt: Date | null;
    finishedAt: Date | null;
    error: string | null;
    runs: number | null;
    partitionsDropped: string[];
    durationMs: number | null;
    pausedMs: number | null;
    /** Of pausedMs, the time the runs step waited for gaps between the fleet's firings (null = not recorded). */
    yieldedMs: number | null;
    /** The runs step's WAL bound that pass resolved to (MB/s, 1 decimal; null = none or not recorded). */
    walBoundMbPerSecond: number | null;
  } | null;
  partitions: { table: string; count: number; oldest: string | null; newest: string | null }[];
  schedulesWithOverride: number;
  /**
   * The server's settings a pass's WAL meets (README "Retention"): the embedded server sets them (vigil-server.conf);
   * a server reached through DATABASE_URL has its own.
   */
  server: { maxWalSize: string; walCompression: string; checkpointTimeout: string; synchronousCommit: string };
}

export async function getRetentionStatus(db: Queryable): Promise<RetentionStatus> {
  const [status, parts, overrides, server] = await Promise.all([
    db.query<{
      settings: Record<string, unknown> | null;
      worker_id: string | null;
      started_at: Date | null;
      finished_at: Date | null;
      error: string | null;
      result: {
        runs?: number;
        partitionsDropped?: { partition: string }[];
        durationMs?: number;
        pausedMs?: number;
        yieldedMs?: number;
        walBoundBytesPerSecond?: number;
      } | null;
    }>(`SELECT settings, worker_id, started_at, finished_at, error, result FROM retention_status WHERE id`),
    db.query<{ table: string; count: number; oldest: string | null; newest: string | null }>(
      `SELECT p.relname AS table, count(*)::int AS count, min(right(c.relname, 8)) AS oldest, max(right(c.relname, 8)) AS newest
         FROM pg_class p JOIN pg_inherits i ON i.inhparent = p.oid JOIN pg_class c ON c.oid = i.inhrelid
        WHERE p.relname IN ('run_events', 'run_logs') AND p.relkind = 'p'
        GROUP BY p.relname ORDER BY p.relname`,
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM schedules WHERE retention_days IS NOT NULL AND deleted_at IS NULL`),
    db.query<RetentionStatus["server"]>(
      `SELECT current_setting('max_wal_size') AS "maxWalSize", current_setting('wal_compression') AS "walCompression",
              current_setting('checkpoint_timeout') AS "checkpointTimeout", current_setting('synchronous_commit') AS "synchronousCommit"`,
    ),
  ]);
  const s = status.rows[0];
  const ymd = (v: string | null) => (v ? `${v.slice(0, 4)}-${v.slice(4, 6)}-${v.slice(6, 8)}` : null);
  return {
    settings: s ? { ...retentionSettingsFromEnv(getEnv()), ...s.settings } : retentionSettingsFromEnv(getEnv()),
    settingsFrom: s ? "worker" : "console",
    lastPass: s
      ? {
          workerId: s.worker_id,
          startedAt: s.started_at,
          finishedAt: s.finished_at,
          error: s.error,
          runs: s.result?.runs ?? null,
          partitionsDropped: (s.result?.partitionsDropped ?? []).map((p) => p.partition),
          durationMs: s.result?.durationMs ?? null,
          pausedMs: s.result?.pausedMs ?? null,
          yieldedMs: s.result?.yieldedMs ?? null,
          walBoundMbPerSecond: s.result?.walBoundBytesPerSecond ? Math.round(s.result.walBoundBytesPerSecond / 104857.6) / 10 : null,
        }
      : null,
    partitions: parts.rows.map((r) => ({ table: r.table, count: r.count, oldest: ymd(r.oldest), newest: ymd(r.newest) })),
    schedulesWithOverride: overrides.rows[0]?.n ?? 0,
    server: server.rows[0]!,
  };
}
