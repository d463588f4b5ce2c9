// The timeline window: planned occurrences against actual runs and attempts, for every live schedule (or
// one). Compact on purpose — 50 schedules × 6 h at one fire a minute is 18,000 runs — so runs are tuples of
// small numbers: the planned time as a millisecond offset from t0, the other times of a run as offsets from
// its planned time (mostly a few digits), states and kinds as indexes into lookup lists. Lateness is not sent:
// it is started − planned. The offsets are computed by Postgres as integers, so no timestamp is parsed here.
// Run ids (the bulk of the answer, and incompressible) are sent only for manual and backfill runs: a scheduled
// run is its schedule and planned instant (find-occurrence.ts).
// Superseded occurrences (cancelled by a re-plan, replaced at the same instant) are left out.
//
// At fleet scale the window is read one page of lanes at a time (timeline-lanes.ts), and when those
// lanes hold more runs than the chart can draw apart (more than one per SUMMARY_PX_PER_RUN pixels of its width,
// which the client sends), the answer is a summary instead of runs: per lane and per time bucket a few pixels
// wide, the counts by state, the worst state, how many started late and the largest lateness. The whole window
// is always drawn; zooming in brings back single runs.
import { type Queryable } from "../../db/pool";
import { BadRequestError } from "../../errors";
import { RUN_KINDS, RUN_STATES, WORST_STATE_ORDER, type RunKind, type RunState } from "../run-states";
import { lateSql } from "../lateness";
import { listTimelineLanes, type TimelineLaneQuery } from "./timeline-lanes";
import { getTimelineForecast, type TimelineForecast } from "./timeline-forecast";
import { listChainEdges, type TimelineEdge } from "../chain/chain-edges";

export const MAX_TIMELINE_WINDOW_MS = 7 * 86_400_000;
export const MAX_TIMELINE_RUNS = 60_000;
/** Below this many pixels per run (on average per lane) the window is summarised. */
export const SUMMARY_PX_PER_RUN = 2;
/** Width of one summary bucket in pixels. */
export const SUMMARY_BUCKET_PX = 4;
export const DEFAULT_TIMELINE_WIDTH = 1200;
/** Runs that started before the window but may still show in it: looked for this far back. */
const LOOKBACK = "1 day";
/** Runs finished more than this long after their planned time are in runs_long_finished_idx (its predicate). */
const LONG_RUN = "10 minutes";

/**
 * The runs the window shows ($1 from, $2 to, $3 schedule ids, $4 LOOKBACK, $8 LONG_RUN): those planned in it, and
 * those planned up to LOOKBACK before it that are still running or retrying or finished inside it. Read in three
 * disjoint parts so no part scans the lookback day by planned time (a day of runs of every lane, most of them long
 * finished): planned in the window or in the last LONG_RUN before it, by planned time; running or retrying, from
 * their partial indexes; finished inside the window although planned more than LONG_RUN before it, from
 * runs_long_finished_idx, which only such runs enter (its predicate is written out here so Postgres can use it).
 * The first part is read lane by lane (schedule_id, planned_at): `schedule_id = ANY(lanes)` let Postgres read every
 * schedule's runs of the window by planned time and drop the other lanes' (52,000 rows for 50 of 1,000 lanes at
 * 10 M runs, 77 ms; lane by lane 2,600 rows, 13 ms). `OFFSET 0` keeps the subquery from being flattened into a hash
 * join, which would bring that plan back.
 */
const WINDOW_RUNS_SQL = `
  SELECT r.* FROM unnest($3::uuid[]) AS lane(id) CROSS JOIN LATERAL (
    SELECT * FROM runs r
     WHERE r.schedule_id = lane.id AND r.planned_at <= $2::timestamptz AND r.planned_at >= $1::timestamptz - $8::interval
       AND (r.planned_at >= $1::timestamptz OR r.state IN ('running', 'retrying') OR r.finished_at >= $1::timestamptz)
    OFFSET 0) r
  UNION ALL
  SELECT r.* FROM runs r
   WHERE r.schedule_id = ANY($3::uuid[]) AND (r.state = 'running' OR r.state = 'retrying')
     AND r.planned_at < $1::timestamptz - $8::interval AND r.planned_at >= $1::timestamptz - $4::interval
  UNION ALL
  SELECT r.* FROM runs r
   WHERE r.schedule_id = ANY($3::uuid[]) AND r.state NOT IN ('running', 'retrying') AND r.finished_at >= $1::timestamptz
     AND (r.finished_at AT TIME ZONE 'UTC') - (r.planned_at AT TIME ZONE 'UTC') > interval '${LONG_RUN}'
     AND r.planned_at < $1::timestamptz - $8::interval AND r.planned_at >= $1::timestamptz - $4::interval`;

/**
 * [scheduleIndex, planned (ms after t0), stateIndex, kindIndex, due (ms after planned), started (ms after planned) | null,
 *  finished (ms after planned) | null, runId (null for a scheduled run: find it by schedule and planned time)]
 */
export type TimelineRun = [number, number, number, number, number, number | null, number | null, string | null];
/** [runIndex, number, started (ms after t0), finished (ms after t0) | null, stateName] — only for runs with more than one attempt. */
export type TimelineAttempt = [number, number, number, number | null, string];
/**
 * [laneIndex, bucketIndex (its start is t0 + bucketIndex × bucketMs), worstStateIndex, late (runs that started late),
 *  maxLatenessMs (−1: none started), then pairs of stateIndex, count]
 */
export type TimelineBucket = number[];

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
  /** "runs": single runs (runs, attempts); "summary": per-lane time buckets (buckets, bucketMs). */
  mode: "runs" | "summary";
  runs: TimelineRun[];
  attempts: TimelineAttempt[];
  bucketMs: number;
  buckets: TimelineBucket[];
  /** Run-after edges between occurrences of lanes in view (runs mode only; core/runs/chain/chain-edges.ts). */
  edges?: TimelineEdge[];
  /** The lanes of this answer are lanes.offset … offset + schedules.length − 1 of lanes.total matching lanes. */
  lanes: { total: number; offset: number };
  /**
   * The oldest occurrence of this answer's lanes (null: none yet). The console fits its default window to a young
   * history with it, so a new install's first runs are not crammed at the right edge of six hours.
   */
  historyFrom: string | null;
  /**
   * The window's future (timeline-forecast.ts): every fire from now to `to` as the plan computes it, less the fires
   * that already have a row (in `runs`). Absent when the window ends before now.
   */
  forecast?: TimelineForecast;
}

export type TimelineQuery = TimelineLaneQuery & {
  /** The chart's plot width in pixels: decides between runs and a summary, and sizes the buckets. */
  width?: number;
  maxRuns?: number;
  /** Leave out the forecast (default: included when the window reaches past now). */
  forecast?: boolean;
};

export async function getTimeline(db: Queryable, q: TimelineQuery): Promise<Timeline> {
  const span = q.to.getTime() - q.from.getTime();
  if (span <= 0) throw new BadRequestError("`to` must be after `from`.", "invalid_query", { to: "must be after from" });
  if (span > MAX_TIMELINE_WINDOW_MS) {
    throw new BadRequestError("The window may span at most 7 days; zoom in.", "invalid_query", { to: "window longer than 7 days" });
  }
  const maxRuns = q.maxRuns ?? MAX_TIMELINE_RUNS;
  const { rows: scheduleRows, total: laneTotal } = await listTimelineLanes(db, q);
  const schedules = scheduleRows.map(({ id, name, paused }) => ({ id, name, paused }));
  const ids = schedules.map((s) => s.id);
  const t0 = q.from.getTime();
  const width = Math.max(100, Math.min(q.width ?? DEFAULT_TIMELINE_WIDTH, 8000));
  const { rows: countRows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM unnest($1::uuid[]) AS lane(id) CROSS JOIN LATERAL (
       SELECT 1 FROM runs r WHERE r.schedule_id = lane.id AND r.planned_at >= $2::timestamptz AND r.planned_at <= $3::timestamptz
       OFFSET 0) r`,
    [ids, q.from.toISOString(), q.to.toISOString()],
  );
  const inWindow = countRows[0]?.n ?? 0;
  const base = {
    from: q.from.toISOString(),
    to: q.to.toISOString(),
    t0,
    states: RUN_STATES,
    kinds: RUN_KINDS,
    schedules,
    startJitterMs: scheduleRows.map((s) => s.start_jitter_ms),
    lanes: { total: laneTotal, offset: Math.max(0, q.laneOffset ?? 0) },
  };
  const bucketMs = Math.max(1000, Math.ceil(span / Math.max(1, Math.floor(width / SUMMARY_BUCKET_PX))));
  const withForecast = async (t: Timeline): Promise<Timeline> => {
    if (q.forecast === false || Date.parse(t.now) >= q.to.getTime()) return t;
    const forecast = await getTimelineForecast(db, {
      scheduleIds: ids,
      from: q.from,
      to: q.to,
      now: new Date(t.now),
      t0,
      width,
      summaryPxPerRun: SUMMARY_PX_PER_RUN,
      bucketMs,
      maxMarks: maxRuns,
    });
    return { ...t, forecast };
  };
  if (inWindow > maxRuns || inWindow > (schedules.length * width) / SUMMARY_PX_PER_RUN) {
    const buckets = await summarise(db, ids, q.from, q.to, bucketMs);
    return withForecast({
      ...base,
      ...(await clockAndHistory(db, ids)),
      mode: "summary",
      runs: [],
      attempts: [],
      bucketMs,
      buckets,
      edges: [],
    });
  }
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
       FROM (${WINDOW_RUNS_SQL}) r JOIN schedules s ON s.id = r.schedule_id AND s.deleted_at IS NULL
      WHERE r.idempotency_key NOT LIKE 'superseded:%'
      ORDER BY r.planned_at, r.id
      LIMIT $5`,
    [q.from.toISOString(), q.to.toISOString(), ids, LOOKBACK, maxRuns + 1, ids, t0, LONG_RUN],
  );
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
  const edges = await listChainEdges(db, ids, q.from, q.to, t0);
  return withForecast({ ...base, ...(await clockAndHistory(db, ids)), mode: "runs", runs, attempts, bucketMs: 0, buckets: [], edges });
}

/** The database's now, and the oldest occurrence of the lanes (one index probe per lane). */
async function clockAndHistory(db: Queryable, ids: string[]): Promise<{ now: string; historyFrom: string | null }> {
  const { rows } = await db.query<{ now: Date; history_from: Date | null }>(
    `SELECT clock_timestamp() AS now,
            (SELECT min(h.planned_at) FROM unnest($1::uuid[]) AS lane(id)
               CROSS JOIN LATERAL (SELECT planned_at FROM runs WHERE schedule_id = lane.id ORDER BY planned_at LIMIT 1) h) AS history_from`,
    [ids],
  );
  return { now: rows[0]!.now.toISOString(), historyFrom: rows[0]!.history_from?.toISOString() ?? null };
}

/** Per lane and bucket: counts by state, the worst state, late starts and the largest lateness, grouped by Postgres. */
async function summarise(db: Queryable, ids: string[], from: Date, to: Date, bucketMs: number): Promise<TimelineBucket[]> {
  const { rows } = await db.query<{ si: number; b: number; state: RunState; n: number; late: number; max_late: number | null }>(
    `SELECT array_position($1::uuid[], r.schedule_id) - 1 AS si,
            floor((extract(epoch FROM r.planned_at) * 1000 - $4::bigint) / $5::bigint)::int AS b,
            r.state, count(*)::int AS n,
            count(*) FILTER (WHERE ${lateSql("r.lateness_ms", "s.start_jitter_ms")})::int AS late, max(r.lateness_ms)::int AS max_late
       FROM runs r JOIN schedules s ON s.id = r.schedule_id
      WHERE r.schedule_id = ANY($1::uuid[]) AND r.planned_at >= $2::timestamptz AND r.planned_at <= $3::timestamptz
        AND r.idempotency_key NOT LIKE 'superseded:%'
      GROUP BY 1, 2, 3
      ORDER BY 1, 2`,
    [ids, from.toISOString(), to.toISOString(), from.getTime(), bucketMs],
  );
  const out: TimelineBucket[] = [];
  let cur: { si: number; b: number; worst: number; late: number; maxLate: number | null; pairs: number[] } | null = null;
  const flush = () => {
    if (cur) out.push([cur.si, cur.b, RUN_STATES.indexOf(WORST_STATE_ORDER[cur.worst]!), cur.late, cur.maxLate ?? -1, ...cur.pairs]);
  };
  for (const r of rows) {
    if (!cur || cur.si !== r.si || cur.b !== r.b) {
      flush();
      cur = { si: r.si, b: r.b, worst: WORST_STATE_ORDER.length - 1, late: 0, maxLate: null, pairs: [] };
    }
    cur.worst = Math.min(cur.worst, WORST_STATE_ORDER.indexOf(r.state));
    cur.late += r.late;
    if (r.max_late !== null) cur.maxLate = Math.max(cur.maxLate ?? 0, r.max_late);
    cur.pairs.push(RUN_STATES.indexOf(r.state), r.n);
  }
  flush();
  return out;
}
