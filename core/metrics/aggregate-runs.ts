// One pass over the runs planned in the metrics window: counts by schedule and state, retries, and the
// bucket counts of the three per-schedule histograms (start lateness, completion gap, duration).
//
// Postgres computes each run's bucket with width_bucket and groups by (schedule, state, buckets): a
// handful of groups per schedule instead of one row per run (measured at 1.4 M runs: 5× faster than
// one FILTER aggregate per bucket). Buckets use Prometheus' "le" (x <= bound) semantics through
// negated bounds: width_bucket(-x, -bounds reversed) = k, the number of bounds >= x, and x falls in
// every bucket j (ascending) with j >= n - k.
import type { Queryable } from "../db/pool";

export const LATENESS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
export const COMPLETION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

export interface HistogramCounts {
  cumulative: number[];
  count: number;
  /** Sum of observations in seconds. */
  sum: number;
}

export interface ScheduleRunAggregate {
  schedule: string;
  /** The schedule's team's name (the `team` label) and id (for a per-team scrape). */
  team: string;
  teamId: string;
  byState: Map<string, number>;
  retries: number;
  lateness: HistogramCounts;
  gap: HistogramCounts;
  duration: HistogramCounts;
}

/** Bounds in ms, negated and reversed, for width_bucket's ascending thresholds. */
export function negatedBoundsMs(bounds: readonly number[]): number[] {
  return [...bounds].reverse().map((b) => -Math.round(b * 1000));
}

const SQL = `
  SELECT s.name AS schedule, t.name AS team, s.team_id, g.*
    FROM (
      SELECT x.schedule_id, x.state,
             width_bucket(-x.lat, $2::float8[]) AS lat_k, width_bucket(-x.gap, $3::float8[]) AS gap_k, width_bucket(-x.dur, $3::float8[]) AS dur_k,
             count(*)::int AS n, sum(greatest(x.attempt - 1, 0))::int AS retries,
             count(x.lat)::int AS lat_n, coalesce(sum(x.lat), 0)::float8 AS lat_sum,
             count(x.gap)::int AS gap_n, coalesce(sum(x.gap), 0)::float8 AS gap_sum,
             count(x.dur)::int AS dur_n, coalesce(sum(x.dur), 0)::float8 AS dur_sum
        FROM (
          SELECT r.schedule_id, r.state, r.attempt,
                 CASE WHEN r.kind <> 'backfill' AND r.reruns = 0 THEN r.lateness_ms::float8 END AS lat,
                 CASE WHEN r.kind <> 'backfill' AND r.reruns = 0 THEN (extract(epoch FROM r.finished_at - r.planned_at) * 1000)::float8 END AS gap,
                 r.duration_ms::float8 AS dur
            FROM runs r
           WHERE r.planned_at > now() - make_interval(secs => $1) AND r.planned_at <= now()
             AND r.schedule_id IN (SELECT t.id FROM schedules t WHERE t.tags @> ARRAY[$4::text])) x
       GROUP BY 1, 2, 3, 4, 5) g
    JOIN schedules s ON s.id = g.schedule_id JOIN teams t ON t.id = s.team_id`;

/** A row of SQL: one (schedule, state, buckets) group; a bucket is null where its value is null for the whole group. */
export interface AggregateRow {
  schedule: string;
  team: string;
  team_id: string;
  schedule_id: string;
  state: string;
  lat_k: number | null;
  gap_k: number | null;
  dur_k: number | null;
  n: number;
  retries: number;
  lat_n: number;
  lat_sum: number;
  gap_n: number;
  gap_sum: number;
  dur_n: number;
  dur_sum: number;
}

export const empty = (n: number): HistogramCounts => ({ cumulative: new Array(n).fill(0), count: 0, sum: 0 });

export function add(h: HistogramCounts, k: number | null, n: number, sumMs: number): void {
  if (n === 0 || k === null) return;
  const size = h.cumulative.length;
  for (let j = Math.max(0, size - k); j < size; j++) h.cumulative[j]! += n;
  h.count += n;
  h.sum += sumMs / 1000;
}

/** Per-schedule aggregates of the schedules carrying `tag` (the opt-in detail series of collect-metrics.ts). */
export async function aggregateRuns(db: Queryable, windowSeconds: number, tag: string): Promise<ScheduleRunAggregate[]> {
  const { rows } = await db.query<AggregateRow>(SQL, [
    windowSeconds,
    negatedBoundsMs(LATENESS_BUCKETS),
    negatedBoundsMs(COMPLETION_BUCKETS),
    tag,
  ]);
  const out = new Map<string, ScheduleRunAggregate>();
  for (const r of rows) {
    let a = out.get(r.schedule);
    if (!a) {
      a = {
        schedule: r.schedule,
        team: r.team,
        teamId: r.team_id,
        byState: new Map(),
        retries: 0,
        lateness: empty(LATENESS_BUCKETS.length),
        gap: empty(COMPLETION_BUCKETS.length),
        duration: empty(COMPLETION_BUCKETS.length),
      };
      out.set(r.schedule, a);
    }
    a.byState.set(r.state, (a.byState.get(r.state) ?? 0) + r.n);
    a.retries += r.retries;
    // A group's lat/gap/dur bucket is null when that value is null for the whole group (count 0).
    add(a.lateness, r.lat_n > 0 ? r.lat_k : null, r.lat_n, r.lat_sum);
    add(a.gap, r.gap_n > 0 ? r.gap_k : null, r.gap_n, r.gap_sum);
    add(a.duration, r.dur_n > 0 ? r.dur_k : null, r.dur_n, r.dur_sum);
  }
  return [...out.values()];
}
