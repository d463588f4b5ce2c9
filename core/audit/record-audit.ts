// Writes one audit row. Call it with the same client/transaction as the change it records, so a
// failed change leaves no audit row and a failed audit write rolls the change back. The database
// assigns time, id and hash chain (see the init migration).
// The trail can never drop a value once written, so before/after are stored with credential-looking values
// masked (a payload's Authorization header, a "password" field…): no row written from now on holds one.
// A secret's value never reaches here at all: payloads hold only {"$secret": "NAME"} references.
//
// Lock order. Every audit row takes the chain's lock (pg_advisory_xact_lock(746345), in the BEFORE INSERT trigger
// vigil_audit_chain, held to the end of the transaction): writers append one at a time. A transaction that also
// locks rows of `schedules` or `runs` (FOR UPDATE / NO KEY UPDATE / KEY SHARE, and the KEY SHARE a run's foreign
// key takes on insert) takes ALL of those row locks FIRST and writes its audit rows LAST: schedule row(s) → run
// rows → audit chain. A transaction that waits for a schedule row while it holds the chain's lock blocks every
// audit writer behind it and deadlocks with a pause / resume / edit / delete holding that row while it writes
// its own audit row. So: never lock a schedule or run after recordAudit in the same transaction (a
// one-statement write, like insert-triggered-run.ts's, locks its rows explicitly in a CTE the audit CTE reads
// from). A deadlock or serialisation failure that still happens is retried by inTransaction (core/db/pool.ts)
// and otherwise answered 409 (core/errors.ts), never 500.
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

/**
 * Many audit rows in one INSERT (a maintenance action writes one per schedule): chained in the order given, exactly
 * as if recordAudit were called for each in turn (the chain trigger runs per row and sees the rows before it).
 */
export async function recordAudits(db: Queryable, items: readonly AuditInput[]): Promise<void> {
  if (items.length === 0) return;
  const json = (v: unknown) => (v === undefined ? null : JSON.stringify(maskCredentials(v)));
  await db.query(
    `INSERT INTO audit_events (actor_type, actor_id, actor, action, target_type, target_id, before, after, reason, ip, user_agent)
     SELECT actor_type, actor_id, actor, action, target_type, target_id, before, after, reason, ip, user_agent
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::jsonb[], $9::text[],
                   $10::text[], $11::text[])
            WITH ORDINALITY AS a(actor_type, actor_id, actor, action, target_type, target_id, before, after, reason, ip, user_agent, n)
      ORDER BY n`,
    [
      items.map((a) => a.actor.type),
      items.map((a) => a.actor.id),
      items.map((a) => a.actor.label),
      items.map((a) => a.action),
      items.map((a) => a.targetType),
      items.map((a) => a.targetId ?? null),
      items.map((a) => json(a.before)),
      items.map((a) => json(a.after)),
      items.map((a) => a.reason ?? null),
      items.map((a) => a.actor.ip ?? null),
      items.map((a) => a.actor.userAgent ?? null),
    ],
  );
}
