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
}

export const USER_COLUMNS = "id, email, name, role, disabled_at, created_at";

export function toUserRecord(row: Record<string, unknown>): UserRecord {
  return {
    id: row.id as string,
    email: row.email as string,
    name: row.name as string,
    role: row.role as Role,
    disabled: row.disabled_at !== null,
    disabledAt: (row.disabled_at as Date | null) ?? null,
    createdAt: row.created_at as Date,
  };
}
