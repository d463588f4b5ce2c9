// The timeline's chain edges: for lanes in view, each downstream occurrence in the window joined to the upstream
// occurrence its link maps it to (chain-rules.ts), when that one is in the window too. Only the links between two
// lanes of the page are read, so a page without chained lanes costs one index probe of schedule_dependencies.
import type { Queryable } from "../../db/pool";
import { mappedUpstreamSql } from "./chain-rules";

/** [upstream lane index, upstream planned (ms after t0), downstream lane index, downstream planned (ms after t0)] */
export type TimelineEdge = [number, number, number, number];

export const MAX_TIMELINE_EDGES = 2000;

export async function listChainEdges(db: Queryable, laneIds: readonly string[], from: Date, to: Date, t0: number): Promise<TimelineEdge[]> {
  if (laneIds.length < 2) return [];
  const { rows } = await db.query<{ ui: number; up: number; di: number; dp: number }>(
    `SELECT array_position($1::uuid[], dep.upstream_id) - 1 AS ui, (round(extract(epoch FROM u.planned_at) * 1000) - $4::bigint)::int AS up,
            array_position($1::uuid[], dep.schedule_id) - 1 AS di, (round(extract(epoch FROM d.planned_at) * 1000) - $4::bigint)::int AS dp
       FROM schedule_dependencies dep
       JOIN runs d ON d.schedule_id = dep.schedule_id AND d.kind = 'scheduled'
                  AND d.planned_at >= $2::timestamptz AND d.planned_at <= $3::timestamptz
      CROSS JOIN ${mappedUpstreamSql("dep", "d.planned_at")}
      WHERE dep.schedule_id = ANY($1::uuid[]) AND dep.upstream_id = ANY($1::uuid[]) AND u.planned_at >= $2::timestamptz
      LIMIT $5`,
    [laneIds, from.toISOString(), to.toISOString(), t0, MAX_TIMELINE_EDGES],
  );
  return rows.map((r) => [r.ui, r.up, r.di, r.dp]);
}
