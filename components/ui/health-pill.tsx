"use client";
import { useQuery } from "@tanstack/react-query";
import { fetchJson } from "./fetch-json";

interface Health {
  status: string;
  database: "up" | "down";
  worker: "up" | "down";
}

export function HealthPill() {
  const { data, isError } = useQuery({
    queryKey: ["health"],
    queryFn: () => fetchJson<Health>("/api/health"),
    refetchInterval: 2000,
  });
  const db = isError ? "down" : (data?.database ?? "…");
  const worker = isError ? "down" : (data?.worker ?? "…");
  return (
    <div className="health" data-testid="health" aria-live="polite">
      <span className={`pill ${db === "up" ? "ok" : "bad"}`} data-testid="health-db" title={`Database ${db}`}>
        {db === "up" ? "●" : "✕"} DB {db}
      </span>
      <span className={`pill ${worker === "up" ? "ok" : "bad"}`} data-testid="health-worker">
        {worker === "up" ? "●" : "✕"} Worker {worker === "up" ? "live" : worker}
      </span>
    </div>
  );
}
