// A concurrency group's start-rate limit: at most `maxStarts` attempts of the group's runs start in any
// sliding window of `perSeconds` seconds, over the attempts' recorded start times (attempts.started_at,
// database clock), across every worker. The group row is the semaphore, as for the concurrency limit:
// every claim of a grouped run holds it FOR UPDATE (locks/lock-run-scope.ts) and the row keeps the group's
// last `maxStarts` start times (recent_starts), so the check and the start are one atomic step.
// Exactness: a claim decides at T (its locked `now`) and its attempts get started_at S ≥ T later in the
// same transaction; any start of another claim committed before our lock, so its S' < T. Counting the
// stored starts after floor_ms(T) − P covers every stored start after S − P (stored times are rounded to
// the millisecond; round(S) ≥ floor_ms(T)), so no window (t − P, t] ever holds more than maxStarts.
// A run the limit holds back waits (wait_reason 'rate_limit', next_attempt_at = its slot) with a pg-boss job
// due then: the runs waiting ahead of it take the next free slots first, so a wake mostly finds its slot free
// (no polling). Only waiters whose slot has come (next_attempt_at <= now) hold back a run that finds room in
// the window: one woken a little late never makes the next one in line wait another round.
// The starting deadline still applies: the planner's misfire sweep marks a waiting run missed like any
// other queued run past its deadline.
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../../db/pool";
import { sendRunJobs } from "../../queue/send-run-job";
import type { LockedGroup, LockedRun, StartRate } from "../locks/lock-run-scope";
import { wakeJob, wokenRunColumns, type WokenRun } from "../locks/wake-job";

export type { StartRate };

/** Per rate-limited group, what a batch knows and has decided so far. */
export interface RateView {
  /** Per batch run: runs waiting for the rate limit ahead of it (older, not in this batch), and those whose slot has come. */
  olderWaiting: Map<string, { all: number; due: number }>;
  /** Starts decided earlier in this batch. */
  batchStarts: number;
  /** Runs of this batch decided earlier to wait for the rate limit (all older than later ones). */
  batchWaiting: number;
}

export const rateLimitText = (group: string) => `waiting: rate limit of ${group}`;

const floorMs = (d: Date) => Math.floor(d.getTime());

/**
 * null when the run may start now (room in the window beside the `dueAhead` runs whose turn has come);
 * otherwise when to try again: its turn is behind `ahead` runs, and slots free as the window slides past
 * the recorded starts, then past the slots given to those ahead.
 */
export function nextRateSlot(rate: StartRate, now: Date, batchStarts: number, ahead: number, dueAhead = ahead): Date | null {
  const P = rate.perSeconds * 1000;
  const N = rate.maxStarts;
  const t0 = floorMs(now);
  const times = [...rate.recentStarts.map((d) => d.getTime()).filter((s) => s > t0 - P), ...new Array<number>(batchStarts).fill(t0)];
  if (times.length + dueAhead < N) return null;
  // A start the simulation places (not yet recorded) is assumed a little late, as woken runs are: a run far
  // back then wakes just after its true turn instead of just before it (which would cost it another wait).
  const lagMs = Math.min(50, P / 20);
  let slot = t0;
  for (let j = 0; j <= ahead; j++) {
    slot = times.length >= N ? Math.max(t0, times[times.length - N]! + P) : t0;
    times.push(slot + lagMs);
  }
  // +1 ms: a start stored at s leaves the window once floor_ms(now) − P ≥ s.
  return new Date(slot + 1);
}

/** The claim's rate-limit step for one run (after the concurrency limit let it through). */
export function decideStartRate(
  run: LockedRun,
  group: LockedGroup,
  rate: RateView | undefined,
): { kind: "wait"; reason: "rate_limit"; message: string; data: Record<string, unknown>; wakeAt: Date } | null {
  if (!group.startRate || !rate) return null;
  const { maxStarts, perSeconds } = group.startRate;
  const older = rate.olderWaiting.get(run.id) ?? { all: 0, due: 0 };
  const ahead = older.all + rate.batchWaiting;
  const wakeAt = nextRateSlot(group.startRate, run.now, rate.batchStarts, ahead, older.due);
  if (!wakeAt) return null;
  return {
    kind: "wait",
    reason: "rate_limit",
    message: rateLimitText(group.name),
    data: { group: group.name, maxStarts, perSeconds, waitingAhead: ahead, wakeAt: wakeAt.toISOString() },
    wakeAt,
  };
}

/** Reads, for the batch's runs in rate-limited groups, how many runs already wait for the limit ahead of each. */
export async function readRateViews(
  tx: Queryable,
  groups: Map<string, LockedGroup>,
  runs: Iterable<LockedRun>,
): Promise<Map<string, RateView> | undefined> {
  const limited = [...runs].filter((r) => r.concurrencyGroup && groups.get(r.concurrencyGroup)?.startRate);
  if (limited.length === 0) return undefined;
  const { rows } = await tx.query<{ id: string; all: number; due: number }>(
    `SELECT q.id, w.all, w.due
       FROM unnest($1::uuid[], $2::text[], $3::timestamptz[]) AS q(id, grp, due_at),
            LATERAL (SELECT count(*)::int AS all, (count(*) FILTER (WHERE w.next_attempt_at <= clock_timestamp()))::int AS due FROM runs w
                      WHERE w.concurrency_group = q.grp AND w.state IN ('queued', 'retrying') AND w.wait_reason = 'rate_limit'
                        AND w.id <> ALL($1::uuid[]) AND (w.due_at, w.id) < (q.due_at, q.id)) w`,
    [limited.map((r) => r.id), limited.map((r) => r.concurrencyGroup), limited.map((r) => r.dueAt)],
  );
  const views = new Map<string, RateView>();
  for (const g of new Set(limited.map((r) => r.concurrencyGroup!)))
    views.set(g, { olderWaiting: new Map(), batchStarts: 0, batchWaiting: 0 });
  const byId = new Map(rows.map((x) => [x.id, { all: x.all, due: x.due }]));
  for (const r of limited) views.get(r.concurrencyGroup!)!.olderWaiting.set(r.id, byId.get(r.id) ?? { all: 0, due: 0 });
  return views;
}

/**
 * After the batch's starts are written: appends the started attempts' recorded start times to their
 * rate-limited groups (keeping the last maxStarts), and gives each run held back a job due at its slot.
 */
export async function applyStartRates(
  tx: Queryable,
  boss: PgBoss,
  startedRunIds: string[],
  waits: { runId: string; wakeAt: Date }[],
): Promise<void> {
  if (startedRunIds.length === 0 && waits.length === 0) return;
  // One statement: the attempts were inserted by an earlier statement of this transaction, so they are visible.
  const { rows } = await tx.query<WokenRun & { next_attempt_at: Date }>(
    `WITH g AS (
       UPDATE concurrency_groups g
          SET recent_starts = ARRAY(SELECT x FROM (SELECT x FROM unnest(g.recent_starts || n.starts) AS x ORDER BY x DESC LIMIT g.max_starts) y ORDER BY x)
         FROM (SELECT r.concurrency_group AS name, array_agg(a.started_at) AS starts
                 FROM runs r JOIN attempts a ON a.run_id = r.id AND a.number = r.attempt
                WHERE r.id = ANY($1::uuid[]) AND r.concurrency_group IS NOT NULL GROUP BY 1) n
        WHERE g.name = n.name AND g.max_starts IS NOT NULL)
     UPDATE runs r SET wakes = r.wakes + 1, next_attempt_at = w.at
       FROM unnest($2::uuid[], $3::timestamptz[]) AS w(id, at) WHERE r.id = w.id
     RETURNING ${wokenRunColumns("r")}, r.next_attempt_at`,
    [startedRunIds, waits.map((w) => w.runId), waits.map((w) => w.wakeAt)],
  );
  await sendRunJobs(
    tx,
    boss,
    rows.map((r) => wakeJob(r, r.next_attempt_at)),
  );
}
