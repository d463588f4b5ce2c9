import { describe, expect, it } from "vitest";
import type { Actor } from "../auth/roles";
import { accessVariant, assertTeamRole, narrowTeams, objectRole, routeRoleOf, teamRoleOf, visibleTeamIds } from "./team-access";
import { DEFAULT_TEAM_ID } from "./team-roles";

const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";
const C = "00000000-0000-4000-8000-00000000000c";
const user: Actor = { type: "user", id: "u", label: "u@x", role: "operator", teams: { [A]: "operator", [B]: "viewer" } };
const auditor: Actor = { type: "user", id: "a", label: "a@x", role: "viewer", teams: { [A]: "auditor" } };

describe("team access", () => {
  it("answers 404 without a role in the team and 403 with too low a one", () => {
    expect(() => assertTeamRole(user, A, "operator", "Schedule", "s1")).not.toThrow();
    expect(() => assertTeamRole(user, B, "operator", "Schedule", "s1")).toThrow(expect.objectContaining({ status: 403 }));
    expect(() => assertTeamRole(user, C, "viewer", "Schedule", "s1")).toThrow(expect.objectContaining({ status: 404 }));
  });

  it("lets an auditor read its team's audit trail and nothing else", () => {
    expect(() => assertTeamRole(auditor, A, "audit", "Audit")).not.toThrow();
    expect(() => assertTeamRole(auditor, A, "viewer", "Schedule", "s")).toThrow(expect.objectContaining({ status: 403 }));
    expect(visibleTeamIds(auditor)).toEqual([]);
    expect(visibleTeamIds(auditor, "audit")).toEqual([A]);
  });

  it("narrows a team-bound token to its team, even for the global admin", () => {
    const token: Actor = { ...user, type: "token", tokenTeamId: A, teams: { [A]: "operator" } };
    expect([teamRoleOf(token, A), teamRoleOf(token, B)]).toEqual(["operator", null]);
    const adminToken: Actor = { type: "token", id: "t", label: "t", role: "admin", teams: {}, tokenTeamId: B };
    expect([teamRoleOf(adminToken, A), teamRoleOf(adminToken, B), visibleTeamIds(adminToken)]).toEqual([null, "admin", [B]]);
  });

  it("derives the route role from the teams: a team admin is an operator at the route, an auditor a viewer", () => {
    expect(routeRoleOf({ [A]: "admin" })).toBe("operator");
    expect(routeRoleOf({ [A]: "auditor", [B]: "viewer" })).toBe("viewer");
    expect(routeRoleOf({})).toBe("viewer");
  });

  it("shows a viewer's team's payloads masked, an operator's not", () => {
    expect([objectRole(user, A), objectRole(user, B)]).toEqual(["operator", "viewer"]);
  });

  it("lets an actor built in code without teams act in the default team only", () => {
    const scripted: Actor = { type: "user", id: null, label: "script", role: "operator" };
    expect([teamRoleOf(scripted, DEFAULT_TEAM_ID), teamRoleOf(scripted, A)]).toEqual(["operator", null]);
  });

  it("keeps a picked team within the visible ones, and keys shared answers by the teams", () => {
    expect(narrowTeams([A, B], B)).toEqual([B]);
    expect(narrowTeams([A, B], C)).toEqual([]);
    expect(narrowTeams(null, C)).toEqual([C]);
    expect(accessVariant(user)).not.toBe(accessVariant({ ...user, teams: { [A]: "operator" } }));
  });
});
