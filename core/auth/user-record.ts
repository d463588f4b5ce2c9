// The public shape of a user: never the password hash.
import { actorMayRunPrograms, type Role } from "./roles";

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
  /** An admin granted the program permission (core/auth/program-permission.ts); it takes effect for an operator. */
  canRunPrograms: boolean;
  /** Whether the user may run programs on worker hosts now: an admin always, an operator when granted. */
  mayRunPrograms: boolean;
}

export const USER_COLUMNS = "id, email, name, role, disabled_at, created_at, oidc_issuer IS NOT NULL AS sso, can_run_programs";

/** A row of USER_COLUMNS. */
export interface UserRow {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled_at: Date | null;
  created_at: Date;
  sso: boolean;
  can_run_programs: boolean;
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
    canRunPrograms: row.can_run_programs === true,
    mayRunPrograms: actorMayRunPrograms({
      type: "user",
      id: row.id,
      label: row.email,
      role: row.role,
      mayRunPrograms: row.can_run_programs,
    }),
  };
}
