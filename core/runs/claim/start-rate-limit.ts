// A concurrency group's start-rate limit: at most `maxStarts` attempts of the group's runs start in any
// sliding window of `perSeconds` seconds, over the attempts' recorded start times (attempts.started_at,
// database clock), across every worker. The group row is the semaphore, as for the concurrency limit:
// every claim of a grouped run holds it FOR UPDATE (lock-run-scope.ts) and the row keeps the group's
// last `maxStarts` start times (recent_starts), so the check and the start are one atomic step.
// Exactness: a claim decides at T (its locked `now`) and its attempts get started_at S ≥ T later in the
// same transaction; any start of another claim committed before our lock, so its S' < T. Counting the
// stored starts after floor_ms(T) − P covers every stored start after S − P (stored times are rounded to
// the millisecond; round(S) ≥ floor_ms(T)), so no window (t − P, t] ever holds more than maxStarts.
// A run the limit holds back waits (wait_reason 'rate_limit') with a pg-boss job due when its turn comes:
// the runs waiting ahead of it take the next free slots first, so each wake finds its slot (no polling).
// The starting deadline still applies: the planner's misfire sweep marks a waiting run missed like any
// other queued run past its deadline.
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../../db/pool";
import { sendRunJob } from "../../queue/send-run-job";
import type { LockedGroup, LockedRun } from "./lock-run-scope";
import { jobExpireSeconds } from "./lock-run-scope";

export interface StartRate {
  maxStarts: number;
  perSeconds: number;
  /** The group's last maxStarts stored start times, oldest first. */
  recentStarts: Date[];
}

/** Per rate-limited group, what a batch knows and has decided so far. */
export interface RateView {
  /** Runs waiting for the rate limit ahead of each batch run (older, not in this batch). */
  olderWaiting: Map<string, number>;
  /** Starts decided earlier in this batch. */
  batchStarts: number;
  /** Runs of this batch decided earlier to wait for the rate limit (all older than later ones). */
  batchWaiting: number;
}

export const rateLimitText = (group: string) => `waiting: rate limit of ${group}`;

const floorMs = (d: Date) => Math.floor(d.getTime());

/**
 * null when the run may start now; otherwise when to try again. The run's turn is behind `ahead` runs;
 * slots free as the window slides past the recorded starts, then past the slots given to those ahead.
 */
export function nextRateSlot(rate: StartRate, now: Date, batchStarts: number, ahead: number): Date | null {
  const P = rate.perSeconds * 1000;
  const N = rate.maxStarts;
  const t0 = floorMs(now);
  const times = [...rate.recentStarts.map((d) => d.getTime()).filter((s) => s > t0 - P), ...new Array<number>(batchStarts).fill(t0)];
  if (times.length + ahead < N) return null;
  let slot = t0;
  for (let j = 0; j <= ahead; j++) {
    slot = times.length >= N ? Math.max(t0, times[times.length - N]! + P) : t0;
    times.push(slot);
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
  const ahead = (rate.olderWaiting.get(run.id) ?? 0) + rate.batchWaiting;
  const wakeAt = nextRateSlot(group.startRate, run.now, rate.batchStarts, ahead);
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
  const { rows } = await tx.query<{ id: string; ahead: number }>(
    `SELECT q.id, (SELECT count(*)::int FROM runs w
                    WHERE w.concurrency_group = q.grp AND w.state = 'queued' AND w.wait_reason = 'rate_limit'
                      AND w.id <> ALL($1::uuid[]) AND (w.due_at, w.id) < (q.due_at, q.id)) AS ahead
       FROM unnest($1::uuid[], $2::text[], $3::timestamptz[]) AS q(id, grp, due_at)`,
    [limited.map((r) => r.id), limited.map((r) => r.concurrencyGroup), limited.map((r) => r.dueAt)],
  );
  const views = new Map<string, RateView>();
  for (const g of new Set(limited.map((r) => r.concurrencyGroup!)))
    views.set(g, { olderWaiting: new Map(), batchStarts: 0, batchWaiting: 0 });
  for (const r of limited) views.get(r.concurrencyGroup!)!.olderWaiting.set(r.id, rows.find((x) => x.id === r.id)?.ahead ?? 0);
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
  if (startedRunIds.length > 0) {
    await tx.query(
      `UPDATE concurrency_groups g
          SET recent_starts = ARRAY(SELECT x FROM (SELECT x FROM unnest(g.recent_starts || n.starts) AS x ORDER BY x DESC LIMIT g.max_starts) y ORDER BY x)
         FROM (SELECT r.concurrency_group AS name, array_agg(a.started_at) AS starts
                 FROM runs r JOIN attempts a ON a.run_id = r.id AND a.number = r.attempt
                WHERE r.id = ANY($1::uuid[]) AND r.concurrency_group IS NOT NULL GROUP BY 1) n
        WHERE g.name = n.name AND g.max_starts IS NOT NULL`,
      [startedRunIds],
    );
  }
  if (waits.length === 0) return;
  const { rows } = await tx.query(
    `UPDATE runs SET wakes = wakes + 1 WHERE id = ANY($1::uuid[])
     RETURNING id, handler, attempt, wakes, timeout_seconds, grace_seconds`,
    [waits.map((w) => w.runId)],
  );
  for (const r of rows) {
    await sendRunJob(tx, boss, {
      runId: r.id,
      handler: r.handler,
      attempt: r.attempt + 1,
      wake: r.wakes,
      dueAt: waits.find((w) => w.runId === r.id)!.wakeAt,
      expireInSeconds: jobExpireSeconds({ timeoutSeconds: r.timeout_seconds, graceSeconds: r.grace_seconds }),
    });
  }
}
