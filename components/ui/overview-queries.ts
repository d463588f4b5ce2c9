import { queryOptions } from "@tanstack/react-query";
import { fetchJsonConditional } from "./fetch-json-conditional";
import type { Jsonify } from "@/core/jsonify";
import type { RunsOverview } from "@/core/runs/read/overview";
import { livePoll } from "./live-updates";

export type { AttentionCounts } from "@/core/runs/read/overview";

/** GET /api/overview — core/runs/read/overview.ts getRunsOverview, dates as ISO text. */
export type OverviewView = Jsonify<RunsOverview>;

/** `team`: one of the caller's teams (the header's team switcher). */
export const overviewQuery = (team?: string) =>
  queryOptions({
    queryKey: ["overview", team ?? null],
    // Polled by every page's header: an unchanged answer is a 304 (app/api/_lib/conditional-json.ts).
    queryFn: () => fetchJsonConditional<OverviewView>(team ? `/api/overview?team=${encodeURIComponent(team)}` : "/api/overview"),
    refetchInterval: livePoll(2000),
  });
