"use client";
import { useEffect, useRef } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError } from "./fetch-json";
import { fetchJsonConditional } from "./fetch-json-conditional";
import { livePoll } from "./live-updates";

interface Health {
  status: string;
  database: "up" | "down";
  worker: "up" | "down";
}

// Until the first answer ("…") the state is unknown: neutral, not a red ✕ (the sign-in page showed one on every load).
const pillClass = (v: string) => (v === "up" ? "ok" : v === "…" ? "muted" : "bad");
const pillMark = (v: string) => (v === "up" ? "●" : v === "…" ? "○" : "✕");

export function HealthPill() {
  const queryClient = useQueryClient();
  const { data, error, isError } = useQuery({
    queryKey: ["health"],
    // /api/health answers 503 with the same body while the database is down: that is data, not a failure.
    queryFn: () =>
      fetchJsonConditional<Health>("/api/health").catch((err) => {
        if (err instanceof ApiError && err.status === 503) return { status: "down", database: "down", worker: "down" } as Health;
        throw err;
      }),
    // The change stream says when the database or the fleet's last worker comes or goes (topic "health").
    refetchInterval: livePoll(2000),
    retry: false,
  });
  const db = isError ? "down" : (data?.database ?? "…");
  const worker = isError ? "down" : (data?.worker ?? "…");
  // Pages that failed while the database was down refetch as soon as it is back, instead of showing the
  // error until their own next poll (some do not poll).
  const wasDown = useRef(false);
  useEffect(() => {
    if (db === "down") wasDown.current = true;
    else if (db === "up" && wasDown.current) {
      wasDown.current = false;
      void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] !== "health" });
    }
  }, [db, queryClient]);
  const consoleUnreachable = isError && !(error instanceof ApiError);
  return (
    <div className="health" data-testid="health" aria-live="polite">
      <span className={`pill ${pillClass(db)}`} data-testid="health-db" title={`Database ${db}`}>
        {pillMark(db)} DB{db === "up" ? <span className="pill-word"> up</span> : ` ${db}`}
      </span>
      <span className={`pill ${pillClass(worker)}`} data-testid="health-worker" title={`Worker ${worker === "up" ? "live" : worker}`}>
        {pillMark(worker)} Worker{worker === "up" ? <span className="pill-word"> live</span> : ` ${worker}`}
      </span>
      {db === "down" && (
        <span className="pill bad" role="status" data-testid="db-unavailable">
          {consoleUnreachable ? "Console unreachable — retrying" : "Database unavailable — retrying"}
        </span>
      )}
    </div>
  );
}
