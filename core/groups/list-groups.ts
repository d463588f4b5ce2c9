// The console's Groups view (Workers page): each concurrency group with its limits and what they hold right now —
// runs running, starts in the current start-rate window (as the claim counts them: the group's recent_starts), and
// runs waiting for a slot or for the rate limit.
import { type Queryable } from "../db/pool";

export interface GroupRow {
  name: string;
  /** The team that owns the group (core/teams/), its id and name. */
  teamId: string;
  team: string;
  /** At most this many runs of the group run at once, across all workers. */
  concurrencyLimit: number;
  /** null: no start-rate limit. */
  startRateLimit: { maxStarts: number; perSeconds: number } | null;
  running: number;
  /** Starts in the current window (null without a start-rate limit). */
  startsInWindow: number | null;
  waitingForSlot: number;
  waitingForRate: number;
  /** Live schedules in the group. */
  schedules: number;
}

/** teamIds: only these teams' groups (core/teams/team-access.ts visibleTeamIds); null: every team's. */
export async function listGroups(db: Queryable, teamIds: readonly string[] | null = null): Promise<GroupRow[]> {
  const { rows } = await db.query<{
    name: string;
    team_id: string;
    team_name: string;
    max_running: number;
    max_starts: number | null;
    per_seconds: number | null;
    running: number;
    starts_in_window: number | null;
    waiting_slot: number;
    waiting_rate: number;
    schedules: number;
  }>(
    `SELECT g.name, g.team_id, t.name AS team_name, g.max_running, g.max_starts, g.per_seconds,
            (SELECT count(*) FROM runs r WHERE r.concurrency_group = g.name AND r.state = 'running')::int AS running,
            CASE WHEN g.max_starts IS NOT NULL THEN
              (SELECT count(*) FROM unnest(g.recent_starts) x WHERE x > clock_timestamp() - make_interval(secs => g.per_seconds))::int END
              AS starts_in_window,
            (SELECT count(*) FROM runs r WHERE r.concurrency_group = g.name AND r.state = 'queued' AND r.wait_reason = 'concurrency')::int
              AS waiting_slot,
            (SELECT count(*) FROM runs r WHERE r.concurrency_group = g.name AND r.state = 'queued' AND r.wait_reason = 'rate_limit')::int
              AS waiting_rate,
            (SELECT count(*) FROM schedules s WHERE s.concurrency_group = g.name AND s.deleted_at IS NULL)::int AS schedules
       FROM concurrency_groups g JOIN teams t ON t.id = g.team_id
      WHERE $1::uuid[] IS NULL OR g.team_id = ANY($1::uuid[])
      ORDER BY g.name`,
    [teamIds ? [...teamIds] : null],
  );
  return rows.map((r) => ({
    name: r.name,
    teamId: r.team_id,
    team: r.team_name,
    concurrencyLimit: r.max_running,
    startRateLimit: r.max_starts && r.per_seconds ? { maxStarts: r.max_starts, perSeconds: r.per_seconds } : null,
    running: r.running,
    startsInWindow: r.starts_in_window,
    waitingForSlot: r.waiting_slot,
    waitingForRate: r.waiting_rate,
    schedules: r.schedules,
  }));
}
