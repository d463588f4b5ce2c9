"use client";
// A handler's name with a warning when no live worker serves it: its runs wait until one starts.
import { useQuery } from "@tanstack/react-query";
import { handlersQuery } from "./schedules-queries";

export function HandlerName({ name, className }: { name: string; className?: string }) {
  const { data } = useQuery(handlersQuery());
  const h = data?.handlers.find((x) => x.name === name);
  const unavailable = data !== undefined && (!h || h.liveWorkers === 0);
  return (
    <span className={className}>
      <span className="mono">{name}</span>
      {unavailable && (
        <span
          className="pill bad small"
          data-testid="handler-no-worker"
          title={`No live worker serves ${name}: its due runs wait (and the schedule alerts) until a worker that loads it starts.`}
          style={{ marginLeft: 6 }}
        >
          no worker
        </span>
      )}
    </span>
  );
}
