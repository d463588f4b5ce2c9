// The fleet-wide part of a metrics scrape (counts by state, retries, the three histograms) read from the per-minute
// read model fleet_run_minutes (migration 20261203100000_fleet_read_models) instead of an hour of runs: the
// finished runs of every minute from the window's first whole one to the current one come from the model (8 rows a
// minute, whatever the fleet's size); the runs planned in the window's first partial minute and the unfinished runs
// (planned, queued, running, retrying: one pass over the covering runs_unfinished_planned_idx, IN_FLIGHT below)
// straight from runs. The sum is exactly what
// aggregateFleet computes over the runs themselves (fleet-read-models.db.test.ts compares them). The model is the
// folded minute rows plus the deltas not folded yet (migration 20261203900000), read in one snapshot.
import type { Queryable } from "../db/pool";
import { RUN_STATES } from "../runs/run-states";
import { COMPLETION_BUCKETS, LATENESS_BUCKETS, type HistogramCounts } from "./aggregate-runs";

/** The model keeps 25 hours; a longer window is aggregated over the runs (aggregateFleet). */
export const FLEET_MODEL_MAX_WINDOW_SECONDS = 24 * 3600;

export interface FleetRuns {
  byState: Map<string, number>;
  retries: number;
  lateness: HistogramCounts;
  gap: HistogramCounts;
  duration: HistogramCounts;
}

// The direct part, grouped the way the model's rows are built (vigil_fleet_counts' layout).
const DIRECT = `
  SELECT vigil_fleet_counts(g.state, g.n, g.retries, g.lat_k, g.gap_k, g.dur_k) AS counts, ARRAY[g.lat, g.gap, g.dur] AS sums
    FROM (SELECT r.state, v.lat_k, v.gap_k, v.dur_k, count(*)::int AS n, sum(greatest(r.attempt - 1, 0))::int AS retries,
                 coalesce(sum(v.lat), 0) AS lat, coalesce(sum(v.gap), 0) AS gap, coalesce(sum(v.dur), 0) AS dur
            FROM (%RUNS%) r
           CROSS JOIN LATERAL vigil_fleet_run_values(r.kind, r.reruns, r.lateness_ms, r.planned_at, r.finished_at, r.duration_ms) v
           GROUP BY 1, 2, 3, 4) g`;
const COLUMNS = "r.state, r.attempt, r.kind, r.reruns, r.lateness_ms, r.planned_at, r.finished_at, r.duration_ms";
// The runs in flight in the window, grouped first by what vigil_fleet_run_values reads of them and only then valued:
// those not started yet (planned, queued: no lateness, end, duration or retry) fall into one group per state, so
// the per-run work is one hash step, read from the covering runs_unfinished_planned_idx (20261206400000: index only
// where the table's pages are all-visible, e.g. a paused schedule's held fire; a run claimed moments ago still costs
// a heap visit). At 1,000 schedules they are the bulk of the runs in flight (a minute's fires queued at once, a
// paused schedule's held fire each); the runs started and not finished, bounded by the workers' slots and retries,
// are a group each. Still one index entry per run in flight: what grows with the fleet is this count, not the history.
const IN_FLIGHT = `
  SELECT vigil_fleet_counts(g.state, g.n, g.retries, g.lat_k, g.gap_k, g.dur_k) AS counts, ARRAY[g.lat, g.gap, g.dur] AS sums
    FROM (SELECT w.state, v.lat_k, v.gap_k, v.dur_k, sum(w.n)::int AS n, sum(w.n * greatest(w.attempt - 1, 0))::int AS retries,
                 coalesce(sum(w.n * v.lat), 0) AS lat, coalesce(sum(w.n * v.gap), 0) AS gap, coalesce(sum(w.n * v.dur), 0) AS dur
            FROM (SELECT r.state, r.attempt, r.kind, r.reruns, r.lateness_ms, r.finished_at, r.duration_ms,
                         CASE WHEN r.finished_at IS NOT NULL THEN r.planned_at END AS planned_at, count(*) AS n
                    FROM runs r
                   WHERE r.state IN ('planned', 'queued', 'running', 'retrying')
                     AND r.planned_at >= (SELECT lo FROM e) AND r.planned_at <= (SELECT until FROM e)
                   GROUP BY 1, 2, 3, 4, 5, 6, 7, 8) w
           CROSS JOIN LATERAL vigil_fleet_run_values(w.kind, w.reruns, w.lateness_ms, w.planned_at, w.finished_at, w.duration_ms) v
           GROUP BY 1, 2, 3, 4) g`;

// The model's columns c01..c57 (vigil_fleet_counts' layout) and s1..s3 summed back into that array.
const MODEL_COUNTS = `ARRAY[${Array.from({ length: 57 }, (_, i) => `coalesce(sum(f.c${String(i + 1).padStart(2, "0")}), 0)`).join(", ")}]::int[]`;
const MODEL_SUMS = `ARRAY[${[1, 2, 3].map((i) => `coalesce(sum(f.s${i}), 0)`).join(", ")}]::float8[]`;

// Window: planned_at in (since, until]. Whole minutes [lo, hi] from the model — the current minute hi included — and
// (since, lo) from runs; unfinished runs in [lo, until] from runs (runs_unfinished_planned_idx); and the model's
// current minute taken back for its finished runs planned after until (read from runs, negated: a run finishes
// before it is due only when it is cancelled or skipped early, so these are rare). Before, the whole current minute
// was read from runs: at 1,000 schedules firing at second 0 that is 1,000 runs a scrape, finished or not; now only
// the ones still in flight. When the window lies inside one minute (lo > hi) it is all read from runs.
const SQL = `
  WITH t AS (SELECT now() - make_interval(secs => $1) AS since, now() AS until),
       e AS (SELECT t.since, t.until, date_trunc('minute', t.since) + interval '1 minute' AS lo, date_trunc('minute', t.until) AS hi FROM t)
  SELECT vigil_array_sum(p.counts) AS counts, vigil_array_sum(p.sums) AS sums
    FROM (SELECT ${MODEL_COUNTS} AS counts, ${MODEL_SUMS} AS sums FROM (SELECT * FROM fleet_run_minutes UNION ALL SELECT * FROM fleet_run_minute_deltas) f
           WHERE f.minute >= (SELECT lo FROM e) AND f.minute <= (SELECT hi FROM e)
          UNION ALL
          ${DIRECT.replace(
            "%RUNS%",
            `SELECT ${COLUMNS} FROM runs r
              WHERE r.planned_at > (SELECT since FROM e) AND r.planned_at < (SELECT lo FROM e) AND r.planned_at <= (SELECT until FROM e)`,
          )}
          UNION ALL
          ${IN_FLIGHT}
          UNION ALL
          ${DIRECT.replace("vigil_fleet_counts(g.state, g.n, g.retries,", "vigil_fleet_counts(g.state, -g.n, -g.retries,")
            .replace("ARRAY[g.lat, g.gap, g.dur]", "ARRAY[-g.lat, -g.gap, -g.dur]")
            .replace(
              "%RUNS%",
              `SELECT ${COLUMNS} FROM runs r
                WHERE r.planned_at > (SELECT until FROM e) AND r.planned_at < (SELECT hi FROM e) + interval '1 minute'
                  AND r.state NOT IN ('planned', 'queued', 'running', 'retrying') AND (SELECT lo <= hi FROM e)`,
            )}) p`;

function histogram(noncumulative: number[], sumMs: number): HistogramCounts {
  // The model keeps one count per bucket plus +Inf (not cumulative); Prometheus wants cumulative "le" counts.
  const cumulative: number[] = [];
  let running = 0;
  for (let i = 0; i < noncumulative.length - 1; i++) cumulative.push((running += noncumulative[i]!));
  const count = running + noncumulative[noncumulative.length - 1]!;
  return { cumulative, count, sum: count > 0 ? sumMs / 1000 : 0 };
}

/**
 * The states vigil_fleet_counts' layout has a slot for, in its order: RUN_STATES but `excluded` (added later; an
 * excluded fire never ran, and a slot inserted in the stored arrays would shift every count after it).
 */
const FLEET_COUNT_STATES = RUN_STATES.filter((s) => s !== "excluded");

/** Decodes vigil_fleet_counts' layout: runs by state (FLEET_COUNT_STATES), retries, then the three histograms' buckets. */
export function decodeFleetCounts(counts: number[] | null, sums: number[] | null): FleetRuns {
  const c = counts ?? [];
  const at = (i: number) => c[i] ?? 0;
  const byState = new Map<string, number>();
  FLEET_COUNT_STATES.forEach((state, i) => {
    if (at(i) !== 0) byState.set(state, at(i));
  });
  let i = FLEET_COUNT_STATES.length;
  const retries = at(i++);
  const take = (n: number) => Array.from({ length: n + 1 }, () => at(i++));
  const lat = take(LATENESS_BUCKETS.length);
  const gap = take(COMPLETION_BUCKETS.length);
  const dur = take(COMPLETION_BUCKETS.length);
  const s = sums ?? [0, 0, 0];
  return { byState, retries, lateness: histogram(lat, s[0]!), gap: histogram(gap, s[1]!), duration: histogram(dur, s[2]!) };
}

export async function readFleetRuns(db: Queryable, windowSeconds: number): Promise<FleetRuns> {
  // Named (prepared once per connection): its plan is the same whatever the window (the bounds are computed in the
  // statement), and planning this statement cost 7-20 ms a scrape, more than executing it.
  const { rows } = await db.query<{ counts: number[] | null; sums: number[] | null }>({
    name: "vigil_read_fleet_runs",
    text: SQL,
    values: [windowSeconds],
  });
  return decodeFleetCounts(rows[0]?.counts ?? null, rows[0]?.sums ?? null);
}
