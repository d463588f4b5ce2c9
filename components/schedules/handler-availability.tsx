"use client";
// A handler's name with a warning when no live worker serves it (of the schedule's team's pool, when it has one):
// its runs wait until one starts.
import { useQuery } from "@tanstack/react-query";
import { noLiveWorkerText } from "@/core/queue/worker-pool";
import { handlersQuery } from "./schedules-queries";

/** `pool`: the schedule's team's worker pool (null: none); undefined counts every live worker, whatever its pool. */
export function HandlerName({ name, pool, className }: { name: string; pool?: string | null; className?: string }) {
  const { data } = useQuery(handlersQuery());
  const h = data?.handlers.find((x) => x.name === name);
  const live = !h ? 0 : pool === undefined ? h.liveWorkers : (h.livePools.find((p) => p.pool === pool)?.workers ?? 0);
  const unavailable = data !== undefined && live === 0;
  const why = noLiveWorkerText(name, pool);
  return (
    <span className={className}>
      <span className="mono">{name}</span>
      {unavailable && (
        <span
          className="pill bad small"
          data-testid="handler-no-worker"
          title={`${why[0]!.toUpperCase()}${why.slice(1)}: its due runs wait (and the schedule alerts) until ${pool ? `a worker started with --pool ${pool} that loads it` : "a worker that loads it"} starts.`}
          style={{ marginLeft: 6 }}
        >
          {pool ? `no worker in pool ${pool}` : "no worker"}
        </span>
      )}
    </span>
  );
}
