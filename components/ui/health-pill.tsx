"use client";
import { useEffect, useRef } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, fetchJson } from "./fetch-json";

interface Health {
  status: string;
  database: "up" | "down";
  worker: "up" | "down";
}

export function HealthPill() {
  const queryClient = useQueryClient();
  const { data, error, isError } = useQuery({
    queryKey: ["health"],
    // /api/health answers 503 with the same body while the database is down: that is data, not a failure.
    queryFn: () =>
      fetchJson<Health>("/api/health").catch((err) => {
        if (err instanceof ApiError && err.status === 503) return { status: "down", database: "down", worker: "down" } as Health;
        throw err;
      }),
    refetchInterval: 2000,
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
      <span className={`pill ${db === "up" ? "ok" : "bad"}`} data-testid="health-db" title={`Database ${db}`}>
        {db === "up" ? "●" : "✕"} DB {db}
      </span>
      <span className={`pill ${worker === "up" ? "ok" : "bad"}`} data-testid="health-worker">
        {worker === "up" ? "●" : "✕"} Worker {worker === "up" ? "live" : worker}
      </span>
      {db === "down" && (
        <span className="pill bad" role="status" data-testid="db-unavailable">
          {consoleUnreachable ? "Console unreachable — retrying" : "Database unavailable — retrying"}
        </span>
      )}
    </div>
  );
}
