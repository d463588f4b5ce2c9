// A schedule's run-after links changed: its occurrences already planned and not yet enqueued follow the links from
// now on — they wait for their upstream (wait_reason 'upstream', released by the chain sweep), or no longer do.
import type { Queryable } from "../../db/pool";

export async function followUpstreamLinks(tx: Queryable, scheduleId: string, hasLinks: boolean): Promise<void> {
  await tx.query(
    `UPDATE runs SET wait_reason = CASE WHEN $2 THEN 'upstream' END, updated_at = clock_timestamp()
      WHERE schedule_id = $1 AND kind = 'scheduled' AND state = 'planned'
        AND wait_reason IS NOT DISTINCT FROM CASE WHEN $2 THEN NULL ELSE 'upstream' END`,
    [scheduleId, hasLinks],
  );
}
