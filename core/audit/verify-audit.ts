// Walks the whole hash chain in the database (vigil_audit_verify, init migration) and reports the
// first row whose link or content does not match — evidence of an edit made behind its back.
import type { Queryable } from "../db/pool";

export interface AuditVerification {
  ok: boolean;
  checked: number;
  brokenId: number | null;
  problem: string | null;
  verifiedAt: Date;
}

export async function verifyAudit(db: Queryable): Promise<AuditVerification> {
  const { rows } = await db.query<{ checked: number; broken_id: number | null; problem: string | null; verified_at: Date }>(
    `SELECT checked, broken_id, problem, clock_timestamp() AS verified_at FROM vigil_audit_verify()`,
  );
  const r = rows[0]!;
  return {
    ok: r.broken_id === null,
    checked: Number(r.checked),
    brokenId: r.broken_id === null ? null : Number(r.broken_id),
    problem: r.problem ?? null,
    verifiedAt: r.verified_at,
  };
}
