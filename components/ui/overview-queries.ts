import { queryOptions } from "@tanstack/react-query";
import { fetchJson } from "./fetch-json";
import type { Jsonify } from "@/core/jsonify";
import type { RunsOverview } from "@/core/runs/read/overview";

export type { AttentionCounts } from "@/core/runs/read/overview";

/** GET /api/overview — core/runs/read/overview.ts getRunsOverview, dates as ISO text. */
export type OverviewView = Jsonify<RunsOverview>;

export const overviewQuery = () =>
  queryOptions({
    queryKey: ["overview"],
    queryFn: () => fetchJson<OverviewView>("/api/overview"),
    refetchInterval: 2000,
  });
