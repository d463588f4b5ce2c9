import { describe, expect, it } from "vitest";
import { claimValues, mapRole, parseRoleMap } from "./role-map";

describe("OIDC role map", () => {
  const map = parseRoleMap("vigil-admins=admin, payments-oncall=operator");

  it("gives the highest role any group maps to, whatever the order", () => {
    expect(mapRole(map, ["payments-oncall", "vigil-admins"])).toBe("admin");
    expect(mapRole(map, ["vigil-admins", "payments-oncall"])).toBe("admin");
    expect(mapRole(map, ["payments-oncall", "staff"])).toBe("operator");
  });

  it("refuses (null) a user no entry matches, unless `*` names a role", () => {
    expect(mapRole(map, ["staff"])).toBeNull();
    expect(mapRole(map, [])).toBeNull();
    expect(mapRole(parseRoleMap("vigil-admins=admin,*=viewer"), ["staff"])).toBe("viewer");
    expect(mapRole(parseRoleMap("*=viewer,vigil-admins=admin"), ["vigil-admins"])).toBe("admin");
  });

  it("splits on semicolons when there is one, so a group DN may hold commas", () => {
    const dn = parseRoleMap("cn=admins,ou=groups,dc=example=admin; *=viewer");
    expect(dn.entries).toEqual([{ value: "cn=admins,ou=groups,dc=example", role: "admin" }]);
    expect(dn.fallback).toBe("viewer");
  });

  it("refuses a map it cannot read, naming the entry", () => {
    expect(() => parseRoleMap("")).toThrow(/empty/);
    expect(() => parseRoleMap("vigil-admins=root")).toThrow(/"vigil-admins=root"/);
    expect(() => parseRoleMap("vigil-admins")).toThrow(/value=role/);
  });

  it("reads a claim by a dotted path, as a string or a list of strings", () => {
    const claims = { groups: ["a", 1, "b"], role: "ops", realm_access: { roles: ["x"] } };
    expect(claimValues(claims, "groups")).toEqual(["a", "b"]);
    expect(claimValues(claims, "role")).toEqual(["ops"]);
    expect(claimValues(claims, "realm_access.roles")).toEqual(["x"]);
    expect(claimValues(claims, "missing.path")).toEqual([]);
  });
});
