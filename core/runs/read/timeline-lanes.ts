// Which schedules the timeline draws as lanes, and in what order: one page of lanes at a time (the chart fetches
// and draws only the lanes in view), filtered by name, handler, tag or trouble in the window, sorted by name or
// by trouble in the window ("most trouble first": late + missed + hollow + failed, from schedule_hourly_outcomes
// over the hours the window touches, so 1,000 schedules cost 1,000 × hours small rows, not their runs).
import type { Queryable } from "../../db/pool";
import { pausedSql } from "../paused";

export const TIMELINE_LANE_SORTS = ["name", "trouble"] as const;
export const TIMELINE_TROUBLE_FILTERS = ["any", "late", "missed", "hollow", "failed"] as const;
export type TimelineLaneSort = (typeof TIMELINE_LANE_SORTS)[number];
export type TimelineTroubleFilter = (typeof TIMELINE_TROUBLE_FILTERS)[number];

export interface TimelineLaneQuery {
  from: Date;
  to: Date;
  scheduleId?: string;
  /** Part of the name or handler (case-insensitive). */
  q?: string;
  handler?: string;
  tag?: string;
  /** Only schedules with runs of this kind of trouble in the window. */
  trouble?: TimelineTroubleFilter;
  sort?: TimelineLaneSort;
  laneOffset?: number;
  laneLimit?: number;
  /** Only these teams' schedules (core/teams/team-access.ts visibleTeamIds); null or absent: every team's. */
  teamIds?: readonly string[] | null;
}

export interface TimelineLaneRow {
  id: string;
  name: string;
  paused: boolean;
  start_jitter_ms: number;
  trouble: number;
  total: number;
}

export const MAX_TIMELINE_LANES = 200;

export async function listTimelineLanes(db: Queryable, q: TimelineLaneQuery): Promise<{ rows: TimelineLaneRow[]; total: number }> {
  const { rows } = await db.query<TimelineLaneRow>(
    `SELECT s.id, s.name, ${pausedSql("s")} AS paused, s.start_jitter_ms, t.trouble, count(*) OVER ()::int AS total
       FROM schedules s
       LEFT JOIN LATERAL (
             SELECT coalesce(sum(CASE $7 WHEN 'late' THEN h.late WHEN 'missed' THEN h.missed WHEN 'hollow' THEN h.hollow
                                         WHEN 'failed' THEN h.failed ELSE h.late + h.missed + h.hollow + h.failed END), 0)::int AS trouble
               FROM schedule_hourly_outcomes h
              WHERE h.schedule_id = s.id AND h.hour >= date_trunc('hour', $1::timestamptz) AND h.hour <= $2::timestamptz
                AND ($7 IS NOT NULL OR $8 = 'trouble')) t ON true
      WHERE s.deleted_at IS NULL
        AND ($3::uuid IS NULL OR s.id = $3::uuid)
        AND ($4::text IS NULL OR s.name ILIKE '%' || $4 || '%' OR s.handler ILIKE '%' || $4 || '%')
        AND ($5::text IS NULL OR s.handler = $5)
        AND ($6::text IS NULL OR s.tags @> ARRAY[$6::text])
        AND ($7::text IS NULL OR t.trouble > 0)
        AND ($11::uuid[] IS NULL OR s.team_id = ANY($11::uuid[]))
      ORDER BY CASE WHEN $8 = 'trouble' THEN t.trouble END DESC NULLS LAST, s.name
      LIMIT $9 OFFSET $10`,
    [
      q.from.toISOString(),
      q.to.toISOString(),
      q.scheduleId ?? null,
      q.q?.trim() || null,
      q.handler?.trim() || null,
      q.tag?.trim() || null,
      q.trouble ?? null,
      q.sort ?? "name",
      Math.max(1, Math.min(q.laneLimit ?? 50, MAX_TIMELINE_LANES)),
      Math.max(0, q.laneOffset ?? 0),
      q.teamIds ? [...q.teamIds] : null,
    ],
  );
  return { rows, total: rows[0]?.total ?? 0 };
}
