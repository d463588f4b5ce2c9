// A run's place in its chains, for the run page, the timeline's edges and re-run with downstream: the upstream
// occurrences its schedule's links map it to (with whether each meets its condition yet), and the downstream
// occurrences whose links map them to it. Mapping and conditions are chain-rules.ts's.
import type { Queryable } from "../../db/pool";
import { NotFoundError } from "../../errors";
import { mappedRangeSql, mappedUpstreamSql, verdictSql, type ChainCondition, type ChainMapping } from "./chain-rules";

export interface ChainOccurrence {
  runId: string;
  state: string;
  plannedAt: Date;
  waitReason: string | null;
}

export interface UpstreamLink {
  scheduleId: string;
  scheduleName: string;
  condition: ChainCondition;
  mapping: ChainMapping;
  mappingTimezone: string | null;
  /** The mapped occurrence, or null when the upstream has none (yet). */
  run: ChainOccurrence | null;
  /** Whether its outcome lets this run start: met, impossible, or still waiting for it. */
  verdict: "met" | "impossible" | "wait";
}

export interface DownstreamLink {
  scheduleId: string;
  scheduleName: string;
  condition: ChainCondition;
  runs: ChainOccurrence[];
}

/** How far after an upstream occurrence its downstream occurrences are looked for (a mapping reaches no further). */
export const DOWNSTREAM_WINDOW_DAYS = 7;
const DOWNSTREAM_PER_LINK = 50;

export async function findUpstreamOccurrences(db: Queryable, runId: string): Promise<UpstreamLink[]> {
  const { rows } = await db.query<{
    schedule_id: string;
    schedule_name: string;
    condition: ChainCondition;
    mapping: ChainMapping;
    mapping_timezone: string | null;
    run_id: string | null;
    state: string | null;
    planned_at: Date | null;
    wait_reason: string | null;
    verdict: UpstreamLink["verdict"];
  }>(
    `SELECT up.id AS schedule_id, up.name AS schedule_name, dep.condition, dep.mapping, dep.mapping_timezone,
            u.id AS run_id, u.state, u.planned_at, u.wait_reason,
            ${verdictSql("dep", "u.state")} AS verdict
       FROM runs d
       JOIN schedule_dependencies dep ON dep.schedule_id = d.schedule_id
       JOIN schedules up ON up.id = dep.upstream_id
       LEFT JOIN ${mappedUpstreamSql("dep", "d.planned_at")} ON true
      WHERE d.id = $1 AND d.kind = 'scheduled'
      ORDER BY dep.position`,
    [runId],
  );
  return rows.map((r) => ({
    scheduleId: r.schedule_id,
    scheduleName: r.schedule_name,
    condition: r.condition,
    mapping: r.mapping,
    mappingTimezone: r.mapping_timezone,
    run: r.run_id ? { runId: r.run_id, state: r.state!, plannedAt: r.planned_at!, waitReason: r.wait_reason } : null,
    verdict: r.verdict,
  }));
}

/** Downstream occurrences (already planned) whose links map them to the run `runId`. */
export async function findDownstreamOccurrences(
  db: Queryable,
  runIds: readonly string[],
): Promise<(DownstreamLink & { upstreamRunId: string })[]> {
  if (runIds.length === 0) return [];
  const { lo, hi } = mappedRangeSql("dep", "d.planned_at");
  const { rows } = await db.query<{
    upstream_run_id: string;
    schedule_id: string;
    schedule_name: string;
    condition: ChainCondition;
    runs: { runId: string; state: string; plannedAt: string; waitReason: string | null }[] | null;
  }>(
    `SELECT u.id AS upstream_run_id, f.id AS schedule_id, f.name AS schedule_name, dep.condition,
            (SELECT jsonb_agg(jsonb_build_object('runId', x.id, 'state', x.state, 'plannedAt', x.planned_at, 'waitReason', x.wait_reason)
                              ORDER BY x.planned_at)
               FROM (SELECT d.id, d.state, d.planned_at, d.wait_reason FROM runs d
                      WHERE d.schedule_id = f.id AND d.kind = 'scheduled'
                        AND d.planned_at >= u.planned_at - interval '1 day'
                        AND d.planned_at <= u.planned_at + make_interval(days => $2)
                        -- the latest upstream occurrence in the link's range for d is u
                        AND u.planned_at >= ${lo} AND u.planned_at <= ${hi}
                        AND NOT EXISTS (SELECT 1 FROM runs v WHERE v.schedule_id = u.schedule_id AND v.kind IN ('scheduled', 'manual')
                                           AND v.planned_at > u.planned_at AND v.planned_at <= ${hi})
                      ORDER BY d.planned_at LIMIT $3) x) AS runs
       FROM runs u
       JOIN schedule_dependencies dep ON dep.upstream_id = u.schedule_id
       JOIN schedules f ON f.id = dep.schedule_id AND f.deleted_at IS NULL
      WHERE u.id = ANY($1::uuid[]) AND u.kind IN ('scheduled', 'manual')
      ORDER BY f.name`,
    [runIds, DOWNSTREAM_WINDOW_DAYS, DOWNSTREAM_PER_LINK],
  );
  return rows.map((r) => ({
    upstreamRunId: r.upstream_run_id,
    scheduleId: r.schedule_id,
    scheduleName: r.schedule_name,
    condition: r.condition,
    runs: (r.runs ?? []).map((x) => ({ runId: x.runId, state: x.state, plannedAt: new Date(x.plannedAt), waitReason: x.waitReason })),
  }));
}

/** Both sides of one run, for the run page (GET /api/runs/:id/chain). */
export async function getRunChain(db: Queryable, runId: string): Promise<{ upstream: UpstreamLink[]; downstream: DownstreamLink[] }> {
  const { rows } = await db.query(`SELECT 1 FROM runs WHERE id = $1`, [runId]);
  if (rows.length === 0) throw new NotFoundError("Run", runId);
  const [upstream, downstream] = await Promise.all([findUpstreamOccurrences(db, runId), findDownstreamOccurrences(db, [runId])]);
  return { upstream, downstream: downstream.map(({ upstreamRunId: _, ...l }) => l) };
}
