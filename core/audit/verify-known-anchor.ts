// What the console's verify does: the chain check plus the check against an anchor — the one the caller gives,
// else the newest one known here (VIGIL_AUDIT_ANCHOR_FILE's last line or the database's record of the last one).
import { getPool, type Queryable } from "../db/pool";
import { AnchorFileError, findKnownAnchor, type AuditAnchor } from "./audit-anchor";
import { verifyAuditWithAnchor, type AnchoredVerification } from "./verify-audit-anchor";

export async function verifyAuditAgainstKnownAnchor(
  given: AuditAnchor | null,
  opts: { anchorFile?: string; db?: Queryable } = {},
): Promise<AnchoredVerification> {
  const db = opts.db ?? getPool();
  if (given) return verifyAuditWithAnchor({ ...given, source: "request" }, db);
  try {
    return await verifyAuditWithAnchor(await findKnownAnchor(db, opts.anchorFile), db);
  } catch (err) {
    if (!(err instanceof AnchorFileError)) throw err;
    // An anchor file that cannot be read is a finding, not a crash: the chain is still checked.
    const r = await verifyAuditWithAnchor(null, db);
    return { ...r, ok: false, anchorProblem: err.message };
  }
}
