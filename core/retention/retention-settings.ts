// Retention settings, from env (core/env.ts) into one typed object the duty, the Workers page and the README share.
// Every horizon is in days; 0 keeps that history forever.
import type { Env } from "../env";

export interface RetentionSettings {
  /** Finished runs (with their attempts and events); a schedule's retention_days overrides it. */
  runsDays: number;
  /** Handler log lines (run_logs); never longer than the runs they belong to. */
  logsDays: number;
  /** ctx.once markers: at least this old AND their run gone (a re-run of a kept run must still find them). */
  onceMarkersDays: number;
  /** Resolved alerts with their webhook deliveries; finished deliveries of open alerts. */
  alertsDays: number;
  /** Sign-in attempts (the throttle reads the last day). */
  loginAttemptsDays: number;
  /** Daily per-schedule summaries (they outlive the runs). */
  summariesDays: number;
  /** pg-boss's completed jobs (its queues' deleteAfterSeconds). */
  jobsDays: number;
  everySeconds: number;
  batchSize: number;
  /** The runs step pauses this many times each batch's duration after it (a duty cycle; 0 = no pause). */
  pauseRatio: number;
  /** The longest pause after one batch, in ms. */
  maxPauseMs: number;
  /**
   * synchronous_commit of the pass's own session (default off): its commits return without waiting for their WAL to
   * reach disk (the WAL writer flushes it within wal_writer_delay). A delete lost to a crash is redone by the next
   * pass; nothing else the pass writes needs to survive one. The workers' commits then flush less of its WAL.
   */
  synchronousCommit: "on" | "off";
  /**
   * The runs step waits for a gap between the fleet's firings before each batch (expire-runs.ts yieldToRuns): no run
   * that came due in the last second still waiting to start, no backlog of due runs draining, and the next due
   * instant further away than the last batch took plus YIELD_MARGIN_MS. At most maxPauseMs before one batch.
   */
  yieldToRuns: "on" | "off";
  /**
   * The most WAL the runs step writes per second, in MB (0 = no bound): it pauses longer after a batch that wrote
   * more. "auto": half the rate the server's checkpoint settings take without a requested checkpoint (walBoundSql).
   */
  maxWalMbPerSecond: number | "auto";
  /** How long one retention statement may wait for a lock before it gives up (and retries on the next pass). */
  lockTimeoutMs: number;
  /** Daily partitions kept ready ahead of today. */
  partitionsAheadDays: number;
  /** The planner's horizon (VIGIL_PLAN_AHEAD_SECONDS): bounds which runs can have rows in an expiring day partition. */
  planAheadSeconds: number;
}

export function retentionSettingsFromEnv(env: Env): RetentionSettings {
  return {
    runsDays: env.VIGIL_RETENTION_RUNS_DAYS,
    logsDays: env.VIGIL_RETENTION_LOGS_DAYS,
    onceMarkersDays: env.VIGIL_RETENTION_ONCE_MARKERS_DAYS,
    alertsDays: env.VIGIL_RETENTION_ALERTS_DAYS,
    loginAttemptsDays: env.VIGIL_RETENTION_LOGIN_ATTEMPTS_DAYS,
    summariesDays: env.VIGIL_RETENTION_SUMMARIES_DAYS,
    jobsDays: env.VIGIL_RETENTION_JOBS_DAYS,
    everySeconds: env.VIGIL_RETENTION_EVERY_SECONDS,
    batchSize: env.VIGIL_RETENTION_BATCH_SIZE,
    pauseRatio: env.VIGIL_RETENTION_PAUSE_RATIO,
    maxPauseMs: env.VIGIL_RETENTION_MAX_PAUSE_MS,
    synchronousCommit: env.VIGIL_RETENTION_SYNCHRONOUS_COMMIT,
    yieldToRuns: env.VIGIL_RETENTION_YIELD_TO_RUNS,
    maxWalMbPerSecond: env.VIGIL_RETENTION_MAX_WAL_MB_PER_S,
    lockTimeoutMs: 2000,
    partitionsAheadDays: 7,
    planAheadSeconds: env.VIGIL_PLAN_AHEAD_SECONDS,
  };
}

/** How much room a batch leaves before the next due instant, on top of what the last batch took (yieldToRuns). */
export const YIELD_MARGIN_MS = 100;

/** Runs kept in whole UTC days: with N days, runs planned before UTC midnight N days ago expire (today + N full days stay). */
export function effectiveLogsDays(s: Pick<RetentionSettings, "runsDays" | "logsDays">): number {
  if (s.runsDays === 0) return s.logsDays;
  if (s.logsDays === 0) return s.runsDays;
  return Math.min(s.logsDays, s.runsDays);
}

/**
 * SQL: the WAL rate (bytes/s) "auto" bounds a pass to. PostgreSQL requests a checkpoint once the WAL since the last
 * one exceeds max_wal_size / (1 + checkpoint_completion_target); written at that size per checkpoint_timeout, the
 * checkpoints stay timed. Half of it goes to the pass, the other half is left to everything else writing meanwhile.
 */
export const walBoundSql = `SELECT (pg_size_bytes(current_setting('max_wal_size'))
          / (1 + current_setting('checkpoint_completion_target')::float8)
          / extract(epoch FROM current_setting('checkpoint_timeout')::interval) / 2)::float8 AS b`;
