// The console's buttons follow the caller's role in the object's team: meCan is the one rule they all ask.
import { describe, expect, it } from "vitest";
import { meCan, teamRoleRefusal } from "./use-can";
import type { Me } from "./me-query";

const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";
const C = "00000000-0000-4000-8000-00000000000c";

const me = (role: Me["actor"]["role"], teams: Me["actor"]["teams"], globalAdmin = false): Me => ({
  actor: { type: "user", id: "u", label: "u@vigil.test", role, globalAdmin, teams },
});

describe("meCan", () => {
  const operatorAViewerB = me("operator", [
    { id: A, name: "a", role: "operator" },
    { id: B, name: "b", role: "viewer" },
  ]);

  it("follows the role in the object's team: operate in A, not in B, nothing in a team the caller is not in", () => {
    expect(meCan(operatorAViewerB, "operate", A)).toBe(true);
    expect(meCan(operatorAViewerB, "operate", B)).toBe(false);
    expect(meCan(operatorAViewerB, "read", B)).toBe(true);
    expect(meCan(operatorAViewerB, "read", C)).toBe(false);
    expect(meCan(operatorAViewerB, "administer", A)).toBe(false);
  });

  it("without a team, follows the route-level role (the highest any team gives)", () => {
    expect(meCan(operatorAViewerB, "operate")).toBe(true);
    expect(meCan(operatorAViewerB, "administer")).toBe(false);
  });

  it("lets a team's admin administer its team, an auditor nothing, the global admin everything", () => {
    const teamAdmin = me("operator", [
      { id: A, name: "a", role: "admin" },
      { id: B, name: "b", role: "auditor" },
    ]);
    expect(meCan(teamAdmin, "administer", A)).toBe(true);
    expect(meCan(teamAdmin, "read", B)).toBe(false);
    const global = me("admin", [], true);
    expect(meCan(global, "operate", C)).toBe(true);
    expect(meCan(global, "administer", C)).toBe(true);
  });

  it("allows nothing while the caller is unknown", () => {
    expect(meCan(undefined, "read")).toBe(false);
    expect(meCan(null, "read", A)).toBe(false);
  });
});

describe("teamRoleRefusal", () => {
  const operatorAViewerB = me("operator", [
    { id: A, name: "a", role: "operator" },
    { id: B, name: "b", role: "viewer" },
    { id: C, name: "c", role: "auditor" },
  ]);

  it("is null where the role in the team allows it, else names the role held there and the one needed", () => {
    expect(teamRoleRefusal(operatorAViewerB, "operate", { id: A, name: "a" }, "editing")).toBeNull();
    expect(teamRoleRefusal(operatorAViewerB, "operate", { id: B, name: "b" }, "editing")).toBe(
      "You are a viewer in team b; editing needs operator.",
    );
    expect(teamRoleRefusal(operatorAViewerB, "operate", { id: C, name: "c" }, "editing")).toBe(
      "You are an auditor in team c; editing needs operator.",
    );
    expect(teamRoleRefusal(operatorAViewerB, "administer", { id: "x", name: "x" }, "sharing")).toBe(
      "You hold no role in team x; sharing needs admin.",
    );
    expect(teamRoleRefusal(me("admin", [], true), "administer", { id: B, name: "b" }, "editing")).toBeNull();
  });
});
