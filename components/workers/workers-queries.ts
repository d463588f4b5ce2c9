import { queryOptions } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";

export interface WorkerView {
  id: string;
  host: string;
  pid: number;
  version: string;
  state: string;
  startedAt: string;
  heartbeatAt: string;
  heartbeatAgeMs: number;
  live: boolean;
  running: number;
  capacity: number;
  plannerLagMs: number | null;
  handlers: string[];
}

export const workersQuery = () =>
  queryOptions({
    queryKey: ["workers"],
    queryFn: () => fetchJson<{ workers: WorkerView[] }>("/api/workers"),
    refetchInterval: 2000,
  });
