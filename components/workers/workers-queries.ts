import { queryOptions } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import type { Jsonify } from "@/core/jsonify";
import type { WorkerRow } from "@/core/workers/list-workers";
import { livePoll } from "../ui/live-updates";

/** A row of GET /api/workers — core/workers/list-workers.ts WorkerRow, dates as ISO text. */
export type WorkerView = Jsonify<WorkerRow>;

export const workersQuery = () =>
  queryOptions({
    queryKey: ["workers"],
    queryFn: () => fetchJson<{ workers: WorkerView[] }>("/api/workers"),
    // The table shows each heartbeat's age, which the change stream does not announce: 10 s while it is live.
    refetchInterval: livePoll(2000, 10_000),
  });

/** GET /api/retention — core/retention/get-retention-status.ts, dates as ISO text. */
export type RetentionStatusView = Jsonify<import("@/core/retention/get-retention-status").RetentionStatus>;

export const retentionQuery = () =>
  queryOptions({
    queryKey: ["retention"],
    queryFn: () => fetchJson<RetentionStatusView>("/api/retention"),
    refetchInterval: 30_000,
  });

/** A row of GET /api/groups — core/groups/list-groups.ts GroupRow. */
export type GroupView = Jsonify<import("@/core/groups/list-groups").GroupRow>;

/** team: only that team's groups (the header's team switcher). */
export const groupsQuery = (team?: string) =>
  queryOptions({
    queryKey: team ? ["groups", { team }] : ["groups"],
    queryFn: () => fetchJson<{ groups: GroupView[] }>(`/api/groups${team ? `?team=${encodeURIComponent(team)}` : ""}`),
    refetchInterval: 2000,
  });
