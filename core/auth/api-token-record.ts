// The public shape of an API token: never its hash; the secret is shown once, at creation.
import type { Role } from "./roles";

export interface ApiTokenRecord {
  id: string;
  name: string;
  prefix: string;
  role: Role;
  createdBy: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export const TOKEN_COLUMNS = `t.id, t.name, t.prefix, t.role, t.created_at, t.last_used_at, t.revoked_at,
  (SELECT email FROM users u WHERE u.id = t.created_by) AS created_by`;

export function toApiTokenRecord(r: Record<string, unknown>): ApiTokenRecord {
  return {
    id: r.id as string,
    name: r.name as string,
    prefix: r.prefix as string,
    role: r.role as Role,
    createdBy: (r.created_by as string | null) ?? null,
    createdAt: r.created_at as Date,
    lastUsedAt: (r.last_used_at as Date | null) ?? null,
    revokedAt: (r.revoked_at as Date | null) ?? null,
  };
}
