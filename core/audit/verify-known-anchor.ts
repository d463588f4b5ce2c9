// What the console's verify does: the chain check plus the check against an anchor — the one the caller gives,
// else the newest one known here (VIGIL_AUDIT_ANCHOR_FILE's last line or the database's record of the last one).
import { type Queryable } from "../db/pool";
import { AnchorFileError, findKnownAnchor, type AuditAnchor } from "./audit-anchor";
import { verifyAuditWithAnchor, type AnchoredVerification } from "./verify-audit-anchor";

export async function verifyAuditAgainstKnownAnchor(
  db: Queryable,
  given: AuditAnchor | null,
  opts: { anchorFile?: string } = {},
): Promise<AnchoredVerification> {
  if (given) return verifyAuditWithAnchor(db, { ...given, source: "request" });
  try {
    return await verifyAuditWithAnchor(db, await findKnownAnchor(db, opts.anchorFile));
  } catch (err) {
    if (!(err instanceof AnchorFileError)) throw err;
    // An anchor file that cannot be read is a finding, not a crash: the chain is still checked.
    const r = await verifyAuditWithAnchor(db, null);
    return { ...r, ok: false, anchorProblem: err.message };
  }
}
