// What a queued (or chained, planned) run is waiting for, in the words the runs list, its tooltip and the run page show.
import { noLiveWorkerText } from "../queue/worker-pool";

/** Short form for a queued run's wait_reason ("waiting: rate limit of bank-api"). */
export function waitingText(waitReason: string, concurrencyGroup: string | null): string {
  if (waitReason === "rate_limit") return `waiting: rate limit of ${concurrencyGroup ?? "its group"}`;
  if (waitReason === "upstream") return "waiting for its upstream runs";
  return `waiting: ${waitReason}`;
}

/** The longer explanation (a tooltip). */
export function waitingHint(waitReason: string, concurrencyGroup: string | null): string {
  switch (waitReason) {
    case "rate_limit":
      return `Held back by the start-rate limit of group ${concurrencyGroup}: it starts when the window has room (no later than its starting deadline, else it is missed).`;
    case "concurrency":
      return `Waiting for a free slot in concurrency group ${concurrencyGroup}.`;
    case "overlap":
      return "Waiting for the previous run of this schedule to end.";
    case "upstream":
      return "Runs after other schedules: it waits until their occurrences it is mapped to have ended as its links require (see Upstream / downstream), or its wait deadline passes.";
    default:
      return `Waiting: ${waitReason}.`;
  }
}

/** A queued run that waits for a worker: none alive serves its handler (in its team's pool, if it has one). */
export function noWorkerWaitingText(handler: string, pool: string | null): string {
  return `waiting: ${noLiveWorkerText(handler, pool)}`;
}

export function noWorkerWaitingHint(handler: string, pool: string | null): string {
  return pool
    ? `It starts as soon as a worker started with --pool ${pool} that serves ${handler} is live; a worker of another pool or without one never takes it.`
    : `It starts as soon as a worker that serves ${handler} is live.`;
}
