// The timeline window: planned occurrences against actual runs and attempts, for every live schedule (or
// one). Compact on purpose — 50 schedules × 6 h at one fire a minute is 18,000 runs — so runs are tuples of
// small numbers: the planned time as a millisecond offset from t0, the other times of a run as offsets from
// its planned time (mostly a few digits), states and kinds as indexes into lookup lists. Lateness is not sent:
// it is started − planned. The offsets are computed by Postgres as integers, so no timestamp is parsed here.
// Run ids (the bulk of the answer, and incompressible) are sent only for manual and backfill runs: a scheduled
// run is its schedule and planned instant (find-occurrence.ts).
// Superseded occurrences (cancelled by a re-plan, replaced at the same instant) are left out.
import { getPool, type Queryable } from "../../db/pool";
import { BadRequestError } from "../../errors";
import { pausedSql } from "../paused";
import { RUN_KINDS, RUN_STATES, type RunKind, type RunState } from "../run-states";

export const MAX_TIMELINE_WINDOW_MS = 7 * 86_400_000;
export const MAX_TIMELINE_RUNS = 60_000;
/** Runs that started before the window but may still show in it: looked for this far back. */
const LOOKBACK = "1 day";

/**
 * [scheduleIndex, planned (ms after t0), stateIndex, kindIndex, due (ms after planned), started (ms after planned) | null,
 *  finished (ms after planned) | null, runId (null for a scheduled run: find it by schedule and planned time)]
 */
export type TimelineRun = [number, number, number, number, number, number | null, number | null, string | null];
/** [runIndex, number, started (ms after t0), finished (ms after t0) | null, stateName] — only for runs with more than one attempt. */
export type TimelineAttempt = [number, number, number, number | null, string];

export interface Timeline {
  from: string;
  to: string;
  now: string;
  t0: number;
  states: readonly string[];
  kinds: readonly string[];
  schedules: { id: string; name: string; paused: boolean }[];
  /** Each schedule's start jitter window (ms), by schedule index: whether a run is late depends on it (lateness.ts). */
  startJitterMs: number[];
  runs: TimelineRun[];
  attempts: TimelineAttempt[];
  truncated: boolean;
}

export async function getTimeline(
  q: { from: Date; to: Date; scheduleId?: string; maxRuns?: number },
  db: Queryable = getPool(),
): Promise<Timeline> {
  const span = q.to.getTime() - q.from.getTime();
  if (span <= 0) throw new BadRequestError("`to` must be after `from`.", "invalid_query", { to: "must be after from" });
  if (span > MAX_TIMELINE_WINDOW_MS) {
    throw new BadRequestError("The window may span at most 7 days; zoom in.", "invalid_query", { to: "window longer than 7 days" });
  }
  const maxRuns = q.maxRuns ?? MAX_TIMELINE_RUNS;
  const { rows: scheduleRows } = await db.query<{ id: string; name: string; paused: boolean; start_jitter_ms: number }>(
    `SELECT s.id, s.name, ${pausedSql("s")} AS paused, s.start_jitter_ms FROM schedules s
      WHERE s.deleted_at IS NULL AND ($1::uuid IS NULL OR s.id = $1::uuid) ORDER BY s.name`,
    [q.scheduleId ?? null],
  );
  const schedules = scheduleRows.map(({ id, name, paused }) => ({ id, name, paused }));
  const t0 = q.from.getTime();
  const { rows } = await db.query<{
    id: string;
    si: number | null;
    kind: RunKind;
    state: RunState;
    attempt: number;
    planned: number;
    due: number;
    started: number | null;
    finished: number | null;
  }>(
    `SELECT r.id, array_position($6::uuid[], r.schedule_id) - 1 AS si, r.kind, r.state, r.attempt,
            (round(extract(epoch FROM r.planned_at) * 1000) - $7::bigint)::int AS planned,
            round(extract(epoch FROM r.due_at - r.planned_at) * 1000)::int AS due,
            round(extract(epoch FROM r.started_at - r.planned_at) * 1000)::int AS started,
            round(extract(epoch FROM r.finished_at - r.planned_at) * 1000)::int AS finished
       FROM runs r JOIN schedules s ON s.id = r.schedule_id AND s.deleted_at IS NULL
      WHERE ($3::uuid IS NULL OR r.schedule_id = $3::uuid)
        AND r.planned_at <= $2::timestamptz
        AND r.planned_at >= $1::timestamptz - $4::interval
        AND (r.planned_at >= $1::timestamptz OR r.state IN ('running', 'retrying') OR r.finished_at >= $1::timestamptz)
        AND r.idempotency_key NOT LIKE 'superseded:%'
      ORDER BY r.planned_at, r.id
      LIMIT $5`,
    [q.from.toISOString(), q.to.toISOString(), q.scheduleId ?? null, LOOKBACK, maxRuns + 1, schedules.map((s) => s.id), t0],
  );
  const truncated = rows.length > maxRuns;
  const runs: TimelineRun[] = [];
  const retried: { id: string; at: number }[] = [];
  for (const r of rows.slice(0, maxRuns)) {
    // A schedule created between the two statements is not in the list: its runs wait for the next fetch.
    if (r.si === null) continue;
    if (r.attempt > 1) retried.push({ id: r.id, at: runs.length });
    runs.push([
      r.si,
      r.planned,
      RUN_STATES.indexOf(r.state),
      RUN_KINDS.indexOf(r.kind),
      r.due,
      r.started,
      r.finished,
      r.kind === "scheduled" ? null : r.id,
    ]);
  }
  const attempts: TimelineAttempt[] = [];
  if (retried.length > 0) {
    const at = new Map(retried.map((r) => [r.id, r.at]));
    const off = (d: Date | null) => (d ? d.getTime() - t0 : null);
    const { rows: arows } = await db.query<{
      run_id: string;
      number: number;
      started_at: Date | null;
      finished_at: Date | null;
      state: string;
    }>(`SELECT run_id, number, started_at, finished_at, state FROM attempts WHERE run_id = ANY($1::uuid[]) ORDER BY run_id, number`, [
      retried.map((r) => r.id),
    ]);
    for (const a of arows) attempts.push([at.get(a.run_id)!, a.number, off(a.started_at)!, off(a.finished_at), a.state]);
  }
  const { rows: nowRows } = await db.query<{ now: Date }>("SELECT clock_timestamp() AS now");
  return {
    from: q.from.toISOString(),
    to: q.to.toISOString(),
    now: nowRows[0]!.now.toISOString(),
    t0,
    states: RUN_STATES,
    kinds: RUN_KINDS,
    schedules,
    startJitterMs: scheduleRows.map((s) => s.start_jitter_ms),
    runs,
    attempts,
    truncated,
  };
}
