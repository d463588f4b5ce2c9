// What a change message does to this tab's queries (change-stream.tsx): every query of its topics (TOPIC_QUERY_KEYS)
// is made stale, and those on screen are fetched again, each with a fetch that starts after the message.
//
// invalidateQueries alone does not promise that last part. A query that already has data is refetched afresh
// (its fetch in flight, if any, is cancelled), but one whose FIRST fetch is still in flight is handed that fetch
// instead: its answer may have been read before the change, and its arrival clears the invalidation. A page that had
// just loaded when a run was triggered and finished (the lateness card of a schedule's page, slower to answer than
// the page's header) then showed the run's absence until the 60 s safety net. So those first fetches are cancelled
// first (back to "no data yet", nothing shown as an error) and fetched again with the others.
import type { Query, QueryClient } from "@tanstack/react-query";
import type { ChangeTopic } from "@/core/console/change-topics";
import { TOPIC_QUERY_KEYS } from "./live-updates";

/**
 * `restartFirstFetches: false` leaves first fetches in flight to finish (the stream's hello: a page's first fetches
 * start with its stream, so at hello they have read about when the stream subscribed, and starting them again would
 * double every page load's reads).
 */
export function refetchTopics(
  queryClient: QueryClient,
  topics: readonly ChangeTopic[],
  { restartFirstFetches = true }: { restartFirstFetches?: boolean } = {},
): Promise<void> {
  const heads = new Set(topics.flatMap((t) => TOPIC_QUERY_KEYS[t] ?? []));
  const ofTopics = (q: Query) => heads.has(String(q.queryKey[0]));
  // Synchronous in effect: the cancelled queries are idle again before invalidateQueries looks at them.
  if (restartFirstFetches)
    void queryClient.cancelQueries({ predicate: (q) => ofTopics(q) && q.state.data === undefined && q.state.fetchStatus !== "idle" });
  return queryClient.invalidateQueries({ predicate: ofTopics });
}
