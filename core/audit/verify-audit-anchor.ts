// Verification against an anchor published outside the database. The chain alone cannot show that its newest
// rows were removed (the rows left still link up); an anchor can: the row it names must still exist with the
// same hash, and as many rows must lead up to it as when it was published. Together with the chain check
// (start → head intact) this proves that nothing up to the anchor was altered or removed.
import { type Queryable } from "../db/pool";
import type { AuditAnchor, AuditHead } from "./audit-anchor";
import { readAuditHead } from "./audit-anchor";
import { showHashDifference } from "./hash-difference";
import { verifyAudit, type AuditVerification } from "./verify-audit";

export interface AnchoredVerification extends AuditVerification {
  head: AuditHead | null;
  /** The anchor checked against, or null when none was given or known. */
  anchor: (AuditAnchor & { source?: string }) | null;
  /** Why the trail does not match the anchor; null when it matches or there was no anchor. */
  anchorProblem: string | null;
}

function published(anchor: AuditAnchor): string {
  return anchor.at ? `an anchor published at ${anchor.at}` : "the anchor";
}

/** Why the trail does not match the anchor, or null when it does. */
export async function checkAnchor(db: Queryable, anchor: AuditAnchor, head: AuditHead | null): Promise<string | null> {
  if (!head || head.seq < anchor.seq) {
    return `the chain ends at seq ${head?.seq ?? 0} but ${published(anchor)} records seq ${anchor.seq}: rows at or before the anchor were removed`;
  }
  const { rows } = await db.query<{ hash: string | null; count: string }>(
    `SELECT (SELECT hash FROM audit_events WHERE id = $1) AS hash, (SELECT count(*) FROM audit_events WHERE id <= $1) AS count`,
    [anchor.seq],
  );
  const r = rows[0]!;
  if (r.hash === null) return `the row at seq ${anchor.seq} that ${published(anchor)} records is missing`;
  if (r.hash !== anchor.hash) {
    const shown = showHashDifference(r.hash, anchor.hash);
    return `the row at seq ${anchor.seq} has hash ${shown.a} but ${published(anchor)} records ${shown.b} (they differ from character ${shown.position} on): the chain was rewritten`;
  }
  if (anchor.count !== undefined && Number(r.count) !== anchor.count) {
    return `${Number(r.count)} rows lead up to seq ${anchor.seq} but ${published(anchor)} records ${anchor.count}: rows before the anchor were removed`;
  }
  return null;
}

/** The chain check, plus the anchor check when an anchor is given. ok only when both hold. */
export async function verifyAuditWithAnchor(
  db: Queryable,
  anchor: (AuditAnchor & { source?: string }) | null,
): Promise<AnchoredVerification> {
  const chain = await verifyAudit(db);
  const head = await readAuditHead(db);
  const anchorProblem = anchor ? await checkAnchor(db, anchor, head) : null;
  return { ...chain, ok: chain.ok && anchorProblem === null, head, anchor, anchorProblem };
}
