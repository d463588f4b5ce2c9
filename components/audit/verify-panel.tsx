"use client";
import { useMutation } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import { formatInZone } from "../ui/time-format";
import type { AuditVerification } from "./audit-queries";

/** Re-checks the whole hash chain in the database and says whether any row was altered. */
export function VerifyPanel() {
  const verify = useMutation({ mutationFn: () => fetchJson<AuditVerification>("/api/audit/verify") });
  const r = verify.data;
  return (
    <div className="row" aria-live="polite">
      <button type="button" onClick={() => verify.mutate()} disabled={verify.isPending}>
        {verify.isPending ? "Verifying…" : "Verify chain"}
      </button>
      {r && r.ok && (
        <span className="pill ok" data-testid="verify-result">
          ✓ Intact: {r.checked.toLocaleString()} rows checked at {formatInZone(r.verifiedAt)}
        </span>
      )}
      {r && !r.ok && (
        <span className="pill bad" data-testid="verify-result" role="alert">
          ✕ Broken at row #{r.brokenId}: {r.problem} ({r.checked.toLocaleString()} rows checked)
        </span>
      )}
      {verify.error && <span className="error">{verify.error.message}</span>}
    </div>
  );
}
