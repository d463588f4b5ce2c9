import { describe, expect, it } from "vitest";
import { assertTokenScope, describeScopes, scopeAboveRole, scopesAllow, scopesForRole } from "./token-scopes";
import type { Actor } from "./roles";

describe("token scopes", () => {
  it("no scopes is everything; otherwise the route's scope (or one of its scopes) must be held; a route without one is closed", () => {
    expect(scopesAllow([], "admin")).toBe(true);
    expect(scopesAllow(undefined, undefined)).toBe(true);
    expect(scopesAllow(["runs:read"], "runs:read")).toBe(true);
    expect(scopesAllow(["runs:read"], "runs:trigger")).toBe(false);
    expect(scopesAllow(["runs:cancel"], ["runs:cancel", "runs:rerun"])).toBe(true);
    expect(scopesAllow(["runs:read"], ["runs:cancel", "runs:rerun"])).toBe(false);
    expect(scopesAllow(["runs:read"], "any")).toBe(true);
    expect(scopesAllow(["runs:read"], undefined)).toBe(false);
  });

  it("a scope never widens a role", () => {
    expect(scopesForRole("viewer")).not.toContain("runs:trigger");
    expect(scopesForRole("operator")).toContain("runs:trigger");
    expect(scopesForRole("operator")).not.toContain("admin");
    expect(scopeAboveRole("viewer", ["runs:read", "runs:trigger"])).toBe("runs:trigger");
    expect(scopeAboveRole("admin", ["admin", "secrets:write"])).toBeNull();
  });

  it("refuses only tokens, naming the scope", () => {
    const token: Actor = { type: "token", id: "t", label: "token:x", role: "operator", scopes: ["runs:read"] };
    expect(() => assertTokenScope(token, "runs:trigger")).toThrow(/lacks the scope runs:trigger; it holds runs:read/);
    expect(() => assertTokenScope({ ...token, type: "user" }, "runs:trigger")).not.toThrow();
    expect(describeScopes([])).toEqual(["everything its role allows"]);
    expect(describeScopes(["runs:read"])[0]).toMatch(/^runs:read: read runs/);
  });
});
