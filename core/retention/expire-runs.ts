// Finished runs older than their schedule's retention go, in small batches by index (runs_schedule_planned_key: schedule, planned_at),
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
  /**
   * A bound on the WAL the step writes per second (bytes; 0 or unset = none): after a batch that wrote W bytes of WAL
   * (pg_current_wal_lsn, other sessions' WAL included) in d ms, the pause lasts at least W / maxWalBytesPerSecond − d
   * (not capped by maxPauseMs), so a server's max_wal_size is not run through by the pass faster than its
   * checkpoints spread their writes (forced checkpoints, full-page images of every page touched again).
   */
  maxWalBytesPerSecond?: number;
  /**
   * Yield to the fleet's own runs: before each batch the step waits while a run that came due in the last
   * RECENT_DUE_MS has not started (its claim would share the CPU and the WAL with the batch), while an older backlog
   * of due runs is draining, and while the next due instant is closer than the last batch took plus marginMs; so
   * batches fall in the gaps between firings rather than on them. An older run in a backlog that does not shrink is
   * not waited for (it waits on something else: a group, a rate, a handler no worker runs). At most maxWaitMs before
   * one batch, then the batch runs anyway: a fleet with no gaps still gets its history expired. Unset: no yielding.
   */
  yieldToRuns?: { marginMs: number; maxWaitMs: number };
}

export interface ExpireRunsResult {
  runs: number;
  triggerRequests: number;
  /** DELETE statements run, and the time spent pausing between them (ms). */
  batches: number;
  pausedMs: number;
  /** Of pausedMs, the time spent waiting for a gap between the fleet's runs (yieldToRuns), and how many batches waited. */
  yieldedMs: number;
  yields: number;
}

/** A run due longer ago than this that has not started is not waited for by yieldToRuns, unless the backlog drains. */
export const RECENT_DUE_MS = 1000;
/** The backlog yieldToRuns watches drain: runs due in this window that have not started (counted up to 10,000 a state). */
export const BACKLOG_WINDOW_MS = 60_000;
/** A backlog that has not shrunk for this long is not being drained (the workers are not starting it). */
export const BACKLOG_STALL_MS = 200;
const GAP_POLL_MS = 20;

const unstarted = (state: string, since: string, limit = "") =>
  `SELECT 1 FROM runs WHERE state = '${state}' AND due_at > clock_timestamp() - ${since} * interval '1 ms' AND due_at <= clock_timestamp()${limit}`;
const nextDue = (state: string) => `(SELECT min(due_at) FROM runs WHERE state = '${state}' AND due_at > clock_timestamp())`;
const NOT_STARTED = ["planned", "queued", "retrying"];

/**
 * SQL: whether a run that came due in the last RECENT_DUE_MS has not started yet; how many due in the last
 * BACKLOG_WINDOW_MS have not (the backlog); and the ms until the next due instant (null: none planned). One
 * statement per not-started state, so each is a range of runs_state_due_at_idx.
 */
const gapSql = `SELECT ${NOT_STARTED.map((st) => `EXISTS (${unstarted(st, "$1")})`).join(" OR ")} AS waiting,
       ${NOT_STARTED.map((st) => `(SELECT count(*) FROM (${unstarted(st, "$2", " LIMIT 10000")}) x)`).join(" + ")} AS backlog,
       extract(epoch FROM least(${NOT_STARTED.map(nextDue).join(", ")}) - clock_timestamp())::float8 * 1000 AS next_due_ms`;

/** What the last looks saw of the backlog, across the batches of one pass. */
interface BacklogSeen {
  backlog: number | null;
  /** When (monotonic ms) a look last saw it shrink. */
  shrankAt: number | null;
}

/**
 * Waits (yieldToRuns) while a recently due run waits to start, while the backlog of due runs is draining (it shrank
 * within the last BACKLOG_STALL_MS, seen by this batch's looks or an earlier one's: the workers are busy starting
 * it — a top-of-the-hour fan-out takes seconds — whereas a backlog that does not shrink waits on something else),
 * and while the next due instant is closer than estimateMs + marginMs; at most maxWaitMs. Returns the ms waited (0:
 * a gap at once). Timed with the monotonic clock: it paces this process's own work; what is due is read from the
 * database's clock.
 */
async function waitForGap(
  db: pg.PoolClient | pg.Client,
  estimateMs: number,
  y: { marginMs: number; maxWaitMs: number },
  seen: BacklogSeen,
): Promise<number> {
  const t0 = performance.now();
  for (let slept = false; ; slept = true) {
    const { rows } = await db.query<{ waiting: boolean; backlog: string; next_due_ms: number | null }>(gapSql, [
      RECENT_DUE_MS,
      BACKLOG_WINDOW_MS,
    ]);
    const { waiting, next_due_ms: next } = rows[0]!;
    const backlog = Number(rows[0]!.backlog);
    const now = performance.now();
    if (seen.backlog !== null && backlog < seen.backlog) seen.shrankAt = now;
    seen.backlog = backlog;
    const draining = backlog > 0 && seen.shrankAt !== null && now - seen.shrankAt < BACKLOG_STALL_MS;
    const fits = next === null || next >= estimateMs + y.marginMs;
    const waited = now - t0;
    // A gap found at the first look is no wait (the look's own round trip is not counted as yielding).
    if ((!waiting && !draining && fits) || waited >= y.maxWaitMs) return slept ? waited : 0;
    // Not due yet but too close: sleep until it is due (its runs then read as waiting until they start).
    const sleep = !waiting && !draining && next !== null ? Math.max(GAP_POLL_MS, next) : GAP_POLL_MS;
    await new Promise((r) => setTimeout(r, Math.min(sleep, y.maxWaitMs - waited + 1)));
  }
}

export async function expireRuns(db: pg.PoolClient | pg.Client, o: ExpireRunsOptions): Promise<ExpireRunsResult> {
  const { rows: schedules } = await db.query<{ id: string; days: number }>(
    `SELECT id, coalesce(retention_days, $1::int) AS days FROM schedules`,
    [o.defaultDays],
  );
  let runs = 0;
  let batches = 0;
  let pausedMs = 0;
  let yieldedMs = 0;
  let yields = 0;
  // What the next batch is expected to take: the last one's duration.
  let estimateMs = 0;
  const seen: BacklogSeen = { backlog: null, shrankAt: null };
  const gap = async () => {
    if (!o.yieldToRuns) return;
    const w = await waitForGap(db, estimateMs, o.yieldToRuns, seen);
    if (w > 0) {
      yields++;
      yieldedMs += w;
      pausedMs += w;
    }
  };
  const walBound = (o.maxWalBytesPerSecond ?? 0) > 0;
  const lsn = async () => (walBound ? ((await db.query(`SELECT pg_current_wal_lsn()::text AS l`)).rows[0].l as string) : "");
  let lsn0 = await lsn();
  const pace = async (b0: number) => {
    batches++;
    // The pause is measured with the monotonic clock: it paces this process's own work, it decides nothing.
    const took = performance.now() - b0;
    estimateMs = took;
    let pause = Math.min(took * (o.pauseRatio ?? 0), o.maxPauseMs ?? 5000);
    if (walBound) {
      const { rows } = await db.query<{ l: string; b: string }>(
        `SELECT pg_current_wal_lsn()::text AS l, pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint AS b`,
        [lsn0],
      );
      pause = Math.max(pause, (Number(rows[0]!.b) * 1000) / o.maxWalBytesPerSecond! - took);
      lsn0 = rows[0]!.l;
    }
    if (pause >= 1) {
      const p0 = performance.now();
      await new Promise((r) => setTimeout(r, pause));
      pausedMs += performance.now() - p0;
    }
    // Then a gap between the fleet's firings for the next batch. Only between batches: a pass with nothing to expire,
    // or one batch of it, asks nothing of the fleet (a worker's first pass at start, most passes of a day).
    await gap();
    lsn0 = await lsn();
  };
  const expiring = schedules.filter((s) => s.days > 0);
  if (expiring.length === 0) return { ...(await expireTriggerRequests(db, o)), runs, batches, pausedMs, yieldedMs, yields };
  // Phase 1's horizon: the retention most schedules have (the default, unless most override it).
  const counts = new Map<number, number>();
  for (const s of expiring) counts.set(s.days, (counts.get(s.days) ?? 0) + 1);
  const common = [...counts.entries()].reduce((a, b) => (b[1] > a[1] || (b[1] === a[1] && b[0] === o.defaultDays) ? b : a))[0];
  const skipped = schedules.filter((s) => s.days === 0 || s.days > common).map((s) => s.id);

  // Phase 1, in planned order: runs planned before the common horizon's cutoff, of every schedule but those that
  // keep runs longer (or forever), in batches in planned_at order (runs_planned_at_idx) from a cursor each
  // statement returns. Runs are written in planned order, so a batch deletes rows that share heap pages and the
  // next batch moves on: the pass dirties each page of runs and attempts about once. Per schedule (phase 2's order)
  // a batch touched a page per run and the same pages again in later batches — a day's runs and attempts
  // (≈ 0.5 GB at 1,000 schedules a minute) cycled through shared_buffers about once per 30 schedules, pushing the
  // workers' hot pages out and writing the same pages back over and over while starts got late (measured
  // by the retention bench). Walked past and not deleted: unfinished runs, and the runs of the schedules that keep theirs longer
  // (phase 2 deletes those in their own time) — again by every pass, a cost that grows with how much such
  // schedules keep below the common horizon.
  let cursor: Date | null = null;
  for (;;) {
    const b0 = performance.now();
    const res: pg.QueryResult<{ planned_at: Date }> = await db.query<{ planned_at: Date }>(
      `DELETE FROM runs r
         USING (SELECT id, planned_at FROM runs
                 WHERE planned_at < least(${utcCutoffSql("$1::int")}, $2::date::timestamp AT TIME ZONE 'UTC')
                   AND planned_at >= coalesce($3::timestamptz, '-infinity')
                   AND state <> ALL($4::text[]) AND (finished_at IS NULL OR finished_at < ${utcCutoffSql("$1::int")})
                   AND NOT (schedule_id = ANY($5::uuid[]))
                 ORDER BY planned_at LIMIT $6) k
        WHERE r.id = k.id AND r.state <> ALL($4::text[]) AND (r.finished_at IS NULL OR r.finished_at < ${utcCutoffSql("$1::int")})
        RETURNING k.planned_at`,
      [common, o.summarizedBefore, cursor, NEVER_EXPIRED_STATES, skipped, o.batchSize],
    );
    const rows = res.rows;
    runs += rows.length;
    if (rows.length === 0) {
      batches++;
      break;
    }
    // Runs planned at the cursor's own instant may be left (the LIMIT cut between them): the next statement starts
    // there again, not after it.
    cursor = rows.reduce((m, r) => (r.planned_at > m ? r.planned_at : m), rows[0]!.planned_at);
    if (rows.length < o.batchSize) {
      batches++;
      break;
    }
    await pace(b0);
  }

  // Phase 2, per schedule: the schedules that keep runs longer than the common horizon (their whole range below
  // their own cutoff), and those that keep them shorter (between the common cutoff and their own).
  // One statement deletes up to batchSize runs across these schedules (each schedule's range of
  // runs_schedule_planned_key (schedule, planned_at) below its own cutoff, in turn, until the batch is full), in its own short
  // transaction, and is repeated until a batch comes back short: a statement per schedule cost a round trip and a
  // run of the runs triggers each, 1,000 a pass (the bench's runs step was ×5.8 a plain 5,000-run DELETE).
  // Each statement starts at the last schedule the previous one reached (RETURNING its position): the schedules
  // before it are done, and scanning their ranges again would walk every index entry just deleted (not vacuumed
  // yet) once per statement. Were a plan to visit the schedules out of order, one left behind waits for the next
  // pass: nothing is deleted that should not be.
  // In both phases the state and finish conditions are repeated on the DELETE itself: a run re-run (back to
  // queued) between the subquery's snapshot and the DELETE's row lock is re-checked on its new version there and
  // kept (a LIMITed subquery's result is not re-evaluated). The runs that stay are the ones expire-partitions.ts
  // keeps rows for.
  const others = expiring.filter((s) => s.days !== common);
  const ids = others.map((s) => s.id);
  const days = others.map((s) => s.days);
  let from = 1;
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
                      AND (s.days > $7 OR planned_at >= ${utcCutoffSql("$7::int")})
                      AND state <> ALL($4::text[]) AND (finished_at IS NULL OR finished_at < c.cutoff)
                    LIMIT $5) x
                 WHERE s.n >= $6
                 LIMIT $5) k
        WHERE r.id = k.id AND r.state <> ALL($4::text[]) AND (r.finished_at IS NULL OR r.finished_at < k.cutoff)
        RETURNING k.n`,
      [ids, days, o.summarizedBefore, NEVER_EXPIRED_STATES, o.batchSize, from, common],
    );
    runs += rows.length;
    if (rows.length < o.batchSize) {
      batches++;
      break;
    }
    from = rows.reduce((m, r) => Math.max(m, Number(r.n)), from);
    await pace(b0);
  }
  return {
    ...(await expireTriggerRequests(db, o)),
    runs,
    batches,
    pausedMs: Math.round(pausedMs),
    yieldedMs: Math.round(yieldedMs),
    yields,
  };
}

async function expireTriggerRequests(db: pg.PoolClient | pg.Client, o: ExpireRunsOptions): Promise<{ triggerRequests: number }> {
  let triggerRequests = 0;
  if (o.defaultDays > 0) {
    const { rowCount } = await db.query(`DELETE FROM trigger_requests WHERE created_at < ${utcCutoffSql("$1::int")}`, [o.defaultDays]);
    triggerRequests = rowCount ?? 0;
  }
  return { triggerRequests };
}
