import { queryOptions } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";

export type Role = "viewer" | "operator" | "admin";
export const ROLES: Role[] = ["viewer", "operator", "admin"];

export interface UserView {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled: boolean;
  createdAt: string;
  /** Signs in through single sign-on: the identity provider sets the role at each sign-in. */
  sso: boolean;
  /** An admin granted this operator the program permission (running programs on worker hosts). */
  canRunPrograms: boolean;
  /** May run programs now: an admin by role, an operator when granted. */
  mayRunPrograms: boolean;
  activeSessions: number;
  /** The provider that sets this user's role at each sign-in (SSO user, OIDC on): shown read-only. */
  roleManagedBy: string | null;
}

export interface TokenView {
  id: string;
  name: string;
  prefix: string;
  role: Role;
  team: { id: string; name: string } | null;
  scopes: string[];
  createdBy: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  expiresAt: string;
  state: "active" | "revoked" | "expired" | "owner_inactive";
}

export interface SessionView {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  ip: string | null;
  userAgent: string | null;
  current: boolean;
}

export const usersQuery = () =>
  queryOptions({ queryKey: ["admin", "users"], queryFn: () => fetchJson<{ users: UserView[] }>("/api/users") });

export const tokensQuery = () =>
  queryOptions({ queryKey: ["admin", "tokens"], queryFn: () => fetchJson<{ tokens: TokenView[] }>("/api/tokens") });

export const sessionsQuery = () =>
  queryOptions({ queryKey: ["auth", "sessions"], queryFn: () => fetchJson<{ sessions: SessionView[] }>("/api/auth/sessions") });

/** A secret as the console sees it: its name and who changed it when — never its value (write-only). */
export interface SecretView {
  name: string;
  /** The owning team's name. */
  team: string;
  keyId: string;
  createdAt: string;
  createdBy: string;
  updatedAt: string;
  updatedBy: string;
  usedBy: string[];
  /** Which schedules may refer to it (core/secrets/secret-access.ts), and that rule in one sentence. */
  access: { schedules: string[]; tags: string[]; handlers: string[] };
  accessSummary: string;
  /** Schedules that refer to it without its permission: their runs fail. */
  refused: string[];
}

/** team: only that team's secrets (the header's team switcher). */
export const secretsQuery = (team?: string) =>
  queryOptions({
    queryKey: team ? ["admin", "secrets", { team }] : ["admin", "secrets"],
    queryFn: () => fetchJson<{ secrets: SecretView[] }>(`/api/secrets${team ? `?team=${encodeURIComponent(team)}` : ""}`),
  });
