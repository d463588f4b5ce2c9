// A start-rate limit set on a group (new, or a changed maxStarts/perSeconds) must count the starts that already
// happened in its window: the claim keeps concurrency_groups.recent_starts only while a limit is set, and only the
// last maxStarts of them (core/runs/claim/start-rate-limit.ts), so a limit set now would otherwise see an empty
// or too-short history and let a full window's worth of starts through at once.
// The caller has just written the group row (so holds its lock, as every claim of a rate-limited group does):
// this statement's snapshot therefore sees every attempt a locked claim started. Clears the history when the
// group has no limit.
import type { Queryable } from "../db/pool";

export async function syncRecentStarts(tx: Queryable, group: string): Promise<void> {
  await tx.query(
    `UPDATE concurrency_groups g
        SET recent_starts = CASE WHEN g.max_starts IS NULL THEN '{}'::timestamptz[] ELSE ARRAY(
              SELECT x.started_at FROM (
                SELECT a.started_at FROM attempts a JOIN runs r ON r.id = a.run_id
                 WHERE r.concurrency_group = g.name AND a.started_at > clock_timestamp() - make_interval(secs => g.per_seconds)
                 ORDER BY a.started_at DESC LIMIT g.max_starts) x
              ORDER BY x.started_at) END
      WHERE g.name = $1`,
    [group],
  );
}
