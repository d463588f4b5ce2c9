// Each schedule's typical run duration for the bunching estimate: the median of its last finished runs.
// No read model keeps durations per schedule (fleet_run_minutes keeps only the fleet's histogram), so this reads
// the last RECENT_RUNS finished runs of each schedule asked for through runs(schedule_id, planned_at) — and only
// for schedules in a concurrency group with a limit, the only ones whose lateness it feeds. Medians move slowly:
// they are kept in this process for CACHE_MS, so a console polling the load view reads them about once a minute.
import type { Queryable } from "../db/pool";

const RECENT_RUNS = 20;
const CACHE_MS = 60_000;

const cache = new Map<string, { ms: number | null; at: number }>();

/** Median duration (ms) per schedule id; null when it has no finished run with a duration. */
export async function medianRunDurations(db: Queryable, scheduleIds: readonly string[]): Promise<Map<string, number | null>> {
  const out = new Map<string, number | null>();
  const now = performance.now();
  const missing: string[] = [];
  for (const id of scheduleIds) {
    const hit = cache.get(id);
    if (hit && now - hit.at < CACHE_MS) out.set(id, hit.ms);
    else missing.push(id);
  }
  if (missing.length === 0) return out;
  const { rows } = await db.query<{ id: string; median_ms: number | null }>(
    `SELECT s.id, d.median_ms
       FROM unnest($1::uuid[]) AS s(id)
       CROSS JOIN LATERAL (
         SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY r.duration_ms) AS median_ms
           FROM (SELECT r.duration_ms FROM runs r
                  WHERE r.schedule_id = s.id AND r.finished_at IS NOT NULL AND r.duration_ms IS NOT NULL
                  ORDER BY r.planned_at DESC LIMIT $2) r) d`,
    [missing, RECENT_RUNS],
  );
  if (cache.size > 50_000) cache.clear();
  for (const r of rows) {
    const ms = r.median_ms === null ? null : Math.round(Number(r.median_ms));
    cache.set(r.id, { ms, at: now });
    out.set(r.id, ms);
  }
  return out;
}

/** Forget cached medians (tests that record runs and read the forecast again at once). */
export function forgetRunDurations(): void {
  cache.clear();
}
