// The timeline's future: every fire of the lanes in view from now to the window's end (at most 7 days), drawn from
// the plan itself — planFires (core/schedules/fire-plan.ts) over each schedule and its calendars, the same code the
// planner writes rows from — so the forecast cannot promise what the engine will not do. A fire that already has a
// `runs` row (planned, queued, excluded …) is left to the row: the row is what the timeline's past part draws, and a
// forecast mark beside it would count the fire twice.
//
// Compact like the past part (timeline.ts): marks are tuples of small numbers, fates and reasons indexes into lookup
// lists (a paused schedule's thousand fires share one reason). When the lanes hold more fires than the chart can
// draw apart, the answer is per lane and time bucket counts by fate, on the same bucket grid as the past summary.
// Work is bounded: at most FORECAST_LANE_CAP fires per lane and FORECAST_TOTAL_CAP per answer; a lane cut short
// says up to where its forecast is complete.
import type { Queryable } from "../../db/pool";
import { getEnv } from "../../env";
import { liveWorkerServesSql } from "../../handlers/handler-registry";
import { teamPoolSql } from "../../queue/worker-pool";
import { loadScheduleCalendars } from "../../calendars/calendar-rules";
import { firePlanOf, planFires, type PlannedFire } from "../../schedules/fire-plan";
import { SCHEDULE_COLUMNS, toSchedule, type Schedule, type ScheduleRow } from "../../schedules/schedule-record";

/** Fires computed per lane at most (a week of an every-minute schedule is 10,080). */
export const FORECAST_LANE_CAP = 10_000;
/** Fires computed per answer at most, over all its lanes. */
export const FORECAST_TOTAL_CAP = 120_000;

/**
 * [laneIndex, planned (ms after t0), fateIndex, reasonIndex (−1: none), moved (nominal − planned in ms; 0 unless a
 *  calendar moved the fire)]
 */
export type ForecastMark = [number, number, number, number, number];
/** [laneIndex, bucketIndex (its start is t0 + bucketIndex × bucketMs), then pairs of fateIndex, count] */
export type ForecastBucket = number[];

export interface TimelineForecast {
  /** Where the forecast starts: the later of the window's start and the database's now. */
  from: string;
  /** Lookup lists: a mark's fate and reason are indexes into these. */
  fates: string[];
  reasons: string[];
  /** "marks": single fires; "summary": per lane and bucket counts by fate (bucketMs wide, from t0). */
  mode: "marks" | "summary";
  marks: ForecastMark[];
  bucketMs: number;
  buckets: ForecastBucket[];
  /** Lanes whose forecast was cut at the cap: [laneIndex, last fire shown (ms after t0)]; later fires are not drawn. */
  cut: [number, number][];
  /**
   * Lanes whose handler no live worker (of the lane's team's pool) serves now: [laneIndex, handler], with the pool as a
   * third element for a team with one. Their fires would wait queued.
   */
  noWorker: ([number, string] | [number, string, string])[];
  /** Fires of the window that already have a runs row (drawn by the past part instead). */
  materialised: number;
}

export interface ForecastQuery {
  /** The lanes, in the answer's lane order. */
  scheduleIds: string[];
  from: Date;
  to: Date;
  /** The database's now (the forecast starts there). */
  now: Date;
  t0: number;
  /** The chart's plot width in px and the summary rule of the past part (timeline.ts). */
  width: number;
  summaryPxPerRun: number;
  bucketMs: number;
  maxMarks: number;
  laneCap?: number;
  totalCap?: number;
  deadAfterMs?: number;
}

export async function getTimelineForecast(db: Queryable, q: ForecastQuery): Promise<TimelineForecast> {
  const fcFrom = new Date(Math.max(q.from.getTime(), q.now.getTime()));
  const empty: TimelineForecast = {
    from: fcFrom.toISOString(),
    fates: [],
    reasons: [],
    mode: "marks",
    marks: [],
    bucketMs: 0,
    buckets: [],
    cut: [],
    noWorker: [],
    materialised: 0,
  };
  if (q.scheduleIds.length === 0 || fcFrom >= q.to) return empty;
  const laneOf = new Map(q.scheduleIds.map((id, i) => [id, i]));
  const [schedules, calendars, rows, noWorker] = await Promise.all([
    loadSchedules(db, q.scheduleIds),
    loadScheduleCalendars(db, q.scheduleIds),
    existingRows(db, q.scheduleIds, fcFrom, q.to),
    lanesWithoutWorker(db, q.scheduleIds, q.deadAfterMs ?? getEnv().VIGIL_WORKER_DEAD_AFTER_MS),
  ]);
  const maintenance = await maintenanceReasons(db, schedules);
  const fates: string[] = [];
  const reasons: string[] = [];
  const fateIdx = new Map<string, number>();
  const reasonIdx = new Map<string, number>();
  const indexOf = (list: string[], idx: Map<string, number>, v: string) => {
    let i = idx.get(v);
    if (i === undefined) idx.set(v, (i = list.push(v) - 1));
    return i;
  };
  const laneCap = q.laneCap ?? FORECAST_LANE_CAP;
  let budget = q.totalCap ?? FORECAST_TOTAL_CAP;
  const marks: ForecastMark[] = [];
  const cut: [number, number][] = [];
  let materialised = 0;
  for (const s of schedules) {
    const lane = laneOf.get(s.id)!;
    if (budget <= 0) {
      cut.push([lane, fcFrom.getTime() - q.t0]);
      continue;
    }
    const limit = Math.min(laneCap, budget);
    const plan = planFires(firePlanOf(s, calendars.get(s.id) ?? []), { from: fcFrom, until: q.to }, { limit });
    budget -= plan.fires.length;
    const taken = rows.get(s.id);
    for (const f of plan.fires) {
      if (taken && (taken.has(f.plannedAt.getTime()) || taken.has(f.nominalAt.getTime()))) {
        materialised++;
        continue;
      }
      const reason = reasonOf(f, s, maintenance);
      marks.push([
        lane,
        f.plannedAt.getTime() - q.t0,
        indexOf(fates, fateIdx, f.fate),
        reason === null ? -1 : indexOf(reasons, reasonIdx, reason),
        f.nominalAt.getTime() - f.plannedAt.getTime(),
      ]);
    }
    if (plan.cut && plan.fires.length > 0) cut.push([lane, plan.fires.at(-1)!.plannedAt.getTime() - q.t0]);
  }
  marks.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const base = {
    ...empty,
    fates,
    reasons,
    cut: cut.sort((a, b) => a[0] - b[0]),
    noWorker: noWorker
      .filter(([id]) => laneOf.has(id))
      .map(([id, h, pool]): [number, string] | [number, string, string] => (pool ? [laneOf.get(id)!, h, pool] : [laneOf.get(id)!, h])),
    materialised,
  };
  // The same rule as the past part, over the forecast's share of the width.
  const share = (q.to.getTime() - fcFrom.getTime()) / (q.to.getTime() - q.from.getTime());
  const drawable = (q.scheduleIds.length * q.width * share) / q.summaryPxPerRun;
  if (marks.length <= q.maxMarks && marks.length <= drawable) return { ...base, marks };
  return { ...base, mode: "summary", bucketMs: q.bucketMs, buckets: summariseMarks(marks, q.bucketMs) };
}

/** Per lane and bucket, counts by fate (marks sorted by lane and time). */
function summariseMarks(marks: ForecastMark[], bucketMs: number): ForecastBucket[] {
  const out: ForecastBucket[] = [];
  let cur: { lane: number; b: number; counts: Map<number, number> } | null = null;
  const flush = () => {
    if (cur) out.push([cur.lane, cur.b, ...[...cur.counts].sort((x, y) => x[0] - y[0]).flat()]);
  };
  for (const [lane, planned, fate] of marks) {
    const b = Math.floor(planned / bucketMs);
    if (!cur || cur.lane !== lane || cur.b !== b) {
      flush();
      cur = { lane, b, counts: new Map() };
    }
    cur.counts.set(fate, (cur.counts.get(fate) ?? 0) + 1);
  }
  flush();
  return out;
}

/** The sentence a mark's tooltip shows: the plan's own reason, with the maintenance window named when one holds the pause. */
function reasonOf(f: PlannedFire, s: Schedule, maintenance: Map<string, string>): string | null {
  if (f.fate !== "paused" || !s.maintenanceId) return f.reason;
  const window = maintenance.get(s.maintenanceId);
  return window ? `${f.reason ?? "paused"} (inside maintenance: ${window})` : f.reason;
}

async function loadSchedules(db: Queryable, ids: string[]): Promise<Schedule[]> {
  const { rows } = await db.query<ScheduleRow>(
    `SELECT ${SCHEDULE_COLUMNS} FROM schedules s WHERE s.id = ANY($1::uuid[]) AND s.deleted_at IS NULL`,
    [ids],
  );
  return rows.map(toSchedule);
}

/**
 * The instants of the lanes' scheduled rows in the forecast's range (future rows are the planner's few minutes
 * ahead, excluded fires, and rows a pause or resume recorded), by schedule. Superseded rows no longer hold a fire.
 */
async function existingRows(db: Queryable, ids: string[], from: Date, to: Date): Promise<Map<string, Set<number>>> {
  const { rows } = await db.query<{ schedule_id: string; at: string }>(
    `SELECT r.schedule_id, (extract(epoch FROM r.planned_at) * 1000)::bigint::text AS at
       FROM unnest($1::uuid[]) AS lane(id) CROSS JOIN LATERAL (
         SELECT schedule_id, planned_at FROM runs r
          WHERE r.schedule_id = lane.id AND r.planned_at >= $2::timestamptz AND r.planned_at <= $3::timestamptz
            AND r.kind = 'scheduled' AND r.idempotency_key NOT LIKE 'superseded:%'
          OFFSET 0) r`,
    [ids, from.toISOString(), to.toISOString()],
  );
  const out = new Map<string, Set<number>>();
  for (const r of rows) {
    let set = out.get(r.schedule_id);
    if (!set) out.set(r.schedule_id, (set = new Set()));
    set.add(Number(r.at));
  }
  return out;
}

/**
 * Schedules whose handler no live worker of their team's pool serves now (the same rule as the handler catalog and its
 * alert): [schedule id, handler, pool or null].
 */
async function lanesWithoutWorker(db: Queryable, ids: string[], deadAfterMs: number): Promise<[string, string, string | null][]> {
  const { rows } = await db.query<{ id: string; handler: string; pool: string | null }>(
    `SELECT s.id, s.handler, p.pool FROM schedules s CROSS JOIN LATERAL (SELECT ${teamPoolSql("s.team_id")} AS pool) p
      WHERE s.id = ANY($1::uuid[])
        AND NOT ${liveWorkerServesSql("s.handler", "p.pool", "$2")}`,
    [ids, deadAfterMs],
  );
  return rows.map((r) => [r.id, r.handler, r.pool]);
}

/** The reason of each maintenance window holding one of these schedules paused, by window id. */
async function maintenanceReasons(db: Queryable, schedules: Schedule[]): Promise<Map<string, string>> {
  const ids = [...new Set(schedules.map((s) => s.maintenanceId).filter((id): id is string => id !== null))];
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; reason: string }>(`SELECT id, reason FROM maintenance_windows WHERE id = ANY($1::uuid[])`, [
    ids,
  ]);
  return new Map(rows.map((r) => [r.id, r.reason]));
}
