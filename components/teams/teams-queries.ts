import { queryOptions } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import type { Jsonify } from "@/core/jsonify";

/** A row of GET /api/teams — core/teams/team-store.ts TeamView. */
export type TeamRow = Jsonify<import("@/core/teams/team-store").TeamView>;

export const teamsQuery = () =>
  queryOptions({
    queryKey: ["teams"],
    queryFn: () => fetchJson<{ teams: TeamRow[] }>("/api/teams"),
  });

/** A share of GET /api/teams/:id/shares — core/teams/team-shares.ts TeamShareView. */
export type TeamShareRow = Jsonify<import("@/core/teams/team-shares").TeamShareView>;
export type TeamSharesView = Jsonify<import("@/core/teams/team-shares").TeamSharesView>;

export const teamSharesQuery = (teamId: string) =>
  queryOptions({
    queryKey: ["teams", teamId, "shares"],
    queryFn: () => fetchJson<TeamSharesView>(`/api/teams/${teamId}/shares`),
  });
