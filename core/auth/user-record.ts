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

export function toUserRecord(row: Record<string, unknown>): UserRecord {
  return {
    id: row.id as string,
    email: row.email as string,
    name: row.name as string,
    role: row.role as Role,
    disabled: row.disabled_at !== null,
    disabledAt: (row.disabled_at as Date | null) ?? null,
    createdAt: row.created_at as Date,
    sso: row.sso === true,
  };
}
