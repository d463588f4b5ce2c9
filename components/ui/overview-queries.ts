import { queryOptions } from "@tanstack/react-query";
import { fetchJsonConditional } from "./fetch-json-conditional";
import type { Jsonify } from "@/core/jsonify";
import type { RunsOverview } from "@/core/runs/read/overview";
import { livePoll } from "./live-updates";

export type { AttentionCounts } from "@/core/runs/read/overview";

/** GET /api/overview — core/runs/read/overview.ts getRunsOverview, dates as ISO text. */
export type OverviewView = Jsonify<RunsOverview>;

export const overviewQuery = () =>
  queryOptions({
    queryKey: ["overview"],
    // Polled by every page's header: an unchanged answer is a 304 (app/api/_lib/conditional-json.ts).
    queryFn: () => fetchJsonConditional<OverviewView>("/api/overview"),
    refetchInterval: livePoll(2000),
  });
