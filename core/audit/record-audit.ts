// Writes one audit row. Call it with the same client/transaction as the change it records, so a
// failed change leaves no audit row and a failed audit write rolls the change back. The database
// assigns time, id and hash chain (see the init migration).
// The trail can never drop a value once written, so before/after are stored with credential-looking values
// masked (a payload's Authorization header, a "password" field…): no row written from now on holds one.
// A secret's value never reaches here at all: payloads hold only {"$secret": "NAME"} references.
import type { Queryable } from "../db/pool";
import type { Actor } from "../auth/roles";
import { maskCredentials } from "../secrets/mask-credentials";

export interface AuditInput {
  actor: Actor;
  action: string; // e.g. "schedule.pause", "run.cancel", "user.role_change", "run.zombie_reaped"
  targetType: string; // "schedule" | "run" | "user" | "token" | "alert" | "system"
  targetId?: string | null;
  before?: unknown;
  after?: unknown;
  reason?: string | null;
}

export const AUDIT_COLUMNS = "actor_type, actor_id, actor, action, target_type, target_id, before, after, reason, ip, user_agent";

/** The values of AUDIT_COLUMNS for one row, credentials masked (for a statement that writes the row among others). */
export function auditValues(a: AuditInput): unknown[] {
  return [
    a.actor.type,
    a.actor.id,
    a.actor.label,
    a.action,
    a.targetType,
    a.targetId ?? null,
    a.before === undefined ? null : JSON.stringify(maskCredentials(a.before)),
    a.after === undefined ? null : JSON.stringify(maskCredentials(a.after)),
    a.reason ?? null,
    a.actor.ip ?? null,
    a.actor.userAgent ?? null,
  ];
}

export async function recordAudit(db: Queryable, a: AuditInput): Promise<void> {
  await db.query(`INSERT INTO audit_events (${AUDIT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, auditValues(a));
}
