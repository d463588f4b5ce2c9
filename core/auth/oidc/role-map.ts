// Which Vigil role a user signed in through OIDC gets, from one claim of the provider (a group list,
// a role string…). VIGIL_OIDC_ROLE_MAP is `value=role` entries, e.g.
// `vigil-admins=admin,payments-oncall=operator,*=viewer`: the highest role any of the claim's values
// maps to wins; `*` is the role of everyone else the provider signs in; without `*` they are refused.
import { roleAllows, roleSchema, type Role } from "../roles";

export interface RoleMap {
  entries: ReadonlyArray<{ value: string; role: Role }>;
  /** The role for `*`: anyone the provider signs in whose claim matches no entry. */
  fallback: Role | null;
}

/**
 * Entries are separated by commas, or by semicolons when the string holds one (so a value may contain
 * commas, e.g. an LDAP group DN `cn=admins,ou=groups;*=viewer`). The last `=` separates value and role.
 */
export function parseRoleMap(text: string): RoleMap {
  const parts = (text.includes(";") ? text.split(";") : text.split(",")).map((p) => p.trim()).filter(Boolean);
  if (parts.length === 0) throw new Error("is empty: name at least one `value=role` entry, e.g. `vigil-admins=admin,*=viewer`");
  const entries: Array<{ value: string; role: Role }> = [];
  let fallback: Role | null = null;
  for (const part of parts) {
    const eq = part.lastIndexOf("=");
    const value = eq > 0 ? part.slice(0, eq).trim() : "";
    const role = roleSchema.safeParse(eq > 0 ? part.slice(eq + 1).trim() : "");
    if (!value || !role.success) {
      throw new Error(`entry "${part}" is not \`value=role\` with role viewer, operator or admin`);
    }
    if (value === "*") fallback = role.data;
    else entries.push({ value, role: role.data });
  }
  return { entries, fallback };
}

/** The values of a claim, found by a dotted path (`groups`, `realm_access.roles`): strings, or none. */
export function claimValues(claims: Record<string, unknown>, path: string): string[] {
  let node: unknown = claims;
  for (const key of path.split(".")) {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return [];
    node = (node as Record<string, unknown>)[key];
  }
  if (typeof node === "string") return [node];
  if (Array.isArray(node)) return node.filter((v): v is string => typeof v === "string");
  return [];
}

/** The highest role the values map to, the `*` role when none matches, or null: refused. */
export function mapRole(map: RoleMap, values: readonly string[]): Role | null {
  let best: Role | null = null;
  for (const { value, role } of map.entries) {
    if (values.includes(value) && (best === null || roleAllows(role, best))) best = role;
  }
  return best ?? map.fallback;
}
