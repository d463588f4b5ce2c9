// The public shape of a user: never the password hash.
import type { Role } from "./roles";

export interface UserRecord {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled: boolean;
  disabledAt: Date | null;
  createdAt: Date;
  /** Signs in through single sign-on (OIDC): the provider sets the role at each such sign-in. */
  sso: boolean;
}

export const USER_COLUMNS = "id, email, name, role, disabled_at, created_at, oidc_issuer IS NOT NULL AS sso";

/** A row of USER_COLUMNS. */
export interface UserRow {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled_at: Date | null;
  created_at: Date;
  sso: boolean;
}

export function toUserRecord(row: UserRow): UserRecord {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    disabled: row.disabled_at !== null,
    disabledAt: row.disabled_at ?? null,
    createdAt: row.created_at,
    sso: row.sso === true,
  };
}
