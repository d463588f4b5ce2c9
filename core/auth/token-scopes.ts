// The actions an API token may be limited to. Every API route names the one scope it needs (its spec's `scope`,
// app/api/_lib/api-route.ts); a token with scopes calls only the routes whose scope it holds, a token without any
// calls everything its role allows. A scope never widens a role: each names the least role it needs, and a token is
// refused at creation a scope above its role.
import { z } from "zod";
import { DomainError } from "../errors";
import { roleAllows, type Actor, type Role } from "./roles";

interface ScopeInfo {
  /** The least role a token needs to hold this scope. */
  role: Role;
  /** What it allows, in words, for the console's tokens list and the docs. */
  description: string;
}

export const TOKEN_SCOPES = {
  "schedules:read": { role: "viewer", description: "read schedules, calendars, groups, the timeline and the overview" },
  "schedules:write": { role: "operator", description: "create, change, pause, resume and delete schedules, calendars and groups" },
  "schedules:apply": { role: "operator", description: "apply a schedules document (schedules as code)" },
  "runs:read": { role: "viewer", description: "read runs and their logs" },
  "runs:trigger": { role: "operator", description: "trigger and backfill runs" },
  "runs:cancel": { role: "operator", description: "cancel runs" },
  "runs:rerun": { role: "operator", description: "re-run runs (one or in bulk)" },
  "alerts:read": { role: "viewer", description: "read alerts" },
  "alerts:ack": { role: "operator", description: "acknowledge alerts" },
  "alerts:configure": { role: "operator", description: "read, test and change alert channels" },
  "audit:read": { role: "viewer", description: "read and verify the audit trail" },
  "metrics:read": { role: "viewer", description: "scrape metrics and read worker and handler status" },
  "secrets:write": { role: "admin", description: "list, set and delete secrets (never read their values)" },
  admin: { role: "admin", description: "manage users, tokens and retention" },
} as const satisfies Record<string, ScopeInfo>;

export type TokenScope = keyof typeof TOKEN_SCOPES;

export const TOKEN_SCOPE_NAMES = Object.keys(TOKEN_SCOPES) as [TokenScope, ...TokenScope[]];

export const tokenScopeSchema = z.enum(TOKEN_SCOPE_NAMES, {
  error: `Use one of the scopes ${TOKEN_SCOPE_NAMES.join(", ")}.`,
});

/**
 * What a route declares: a scope of the catalogue; several when the body picks the action (any of them lets the call
 * in, and the handler asks for the one its action needs with assertTokenScope); or "any" for the few routes every
 * token may call whatever its scopes (who am I, the caller's own sessions): they act on the caller alone.
 */
export type RouteScope = TokenScope | readonly [TokenScope, ...TokenScope[]] | "any";

/** The scopes a role may hold (for the token form and validation). */
export function scopesForRole(role: Role): TokenScope[] {
  return TOKEN_SCOPE_NAMES.filter((s) => roleAllows(role, TOKEN_SCOPES[s].role));
}

/** The first scope the role may not hold, or null when all fit. */
export function scopeAboveRole(role: Role, scopes: readonly TokenScope[]): TokenScope | null {
  return scopes.find((s) => !roleAllows(role, TOKEN_SCOPES[s].role)) ?? null;
}

/**
 * Whether a caller holding `scopes` may call a route needing `need`: an empty list is every scope (tokens made before
 * scopes, and users); a route that declares none is refused to a scoped token (fail closed).
 */
export function scopesAllow(scopes: readonly string[] | undefined, need: RouteScope | undefined): boolean {
  if (!scopes || scopes.length === 0) return true;
  if (need === "any") return true;
  if (need === undefined) return false;
  return typeof need === "string" ? scopes.includes(need) : need.some((n) => scopes.includes(n));
}

/** A token's scopes in words, for the console: "everything its role allows" when it has none. */
export function describeScopes(scopes: readonly string[]): string[] {
  if (scopes.length === 0) return ["everything its role allows"];
  return scopes.map((s) => (s in TOKEN_SCOPES ? `${s}: ${TOKEN_SCOPES[s as TokenScope].description}` : s));
}

/** Throws 403 scope_missing when the actor is a token whose scopes do not include `need` (users pass). */
export function assertTokenScope(actor: Actor, need: RouteScope | undefined): void {
  if (actor.type !== "token" || scopesAllow(actor.scopes, need)) return;
  throw new DomainError(
    403,
    "scope_missing",
    need
      ? `This token lacks the scope ${typeof need === "string" ? need : need.join(" or ")}; it holds ${actor.scopes?.join(", ")}.`
      : "This route is not open to tokens limited to scopes.",
  );
}
