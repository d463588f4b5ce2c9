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
}

export interface TokenView {
  id: string;
  name: string;
  prefix: string;
  role: Role;
  createdBy: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export const usersQuery = () =>
  queryOptions({ queryKey: ["admin", "users"], queryFn: () => fetchJson<{ users: UserView[] }>("/api/users") });

export const tokensQuery = () =>
  queryOptions({ queryKey: ["admin", "tokens"], queryFn: () => fetchJson<{ tokens: TokenView[] }>("/api/tokens") });
