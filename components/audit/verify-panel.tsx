"use client";
import { useQuery } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import { formatInZone } from "../ui/time-format";
import type { AuditVerification } from "./audit-queries";

/**
 * Re-checks the whole hash chain in the database and the last anchor published outside it (the anchor file, else
 * the database's record of the last publication): an anchor catches the newest rows removed, which the chain cannot.
 */
export function VerifyPanel() {
  const verify = useQuery({
    queryKey: ["audit", "verify"],
    queryFn: () => fetchJson<AuditVerification>("/api/audit/verify"),
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
  const r = verify.data;
  const busy = verify.isFetching;
  return (
    <div aria-live="polite">
      <div className="row">
        <button type="button" onClick={() => void verify.refetch()} disabled={busy}>
          {busy ? "Verifying…" : "Verify chain"}
        </button>
        {r && !busy && r.ok && (
          <span className="pill ok" data-testid="verify-result">
            ✓ Intact: {r.checked.toLocaleString()} rows checked
            {r.anchor ? ", matching the last anchor" : ""} at {formatInZone(r.verifiedAt)}
          </span>
        )}
        {r && !busy && !r.ok && (
          <span className="pill bad" data-testid="verify-result" role="alert">
            {r.brokenId !== null
              ? `✕ Broken at row #${r.brokenId}: ${r.problem} (${r.checked.toLocaleString()} rows checked)`
              : `✕ Does not match the last anchor: ${r.anchorProblem}`}
          </span>
        )}
        {verify.error && <span className="error">{verify.error.message}</span>}
      </div>
      {r && (
        <p className="muted" data-testid="audit-anchor">
          {r.anchor
            ? `Last anchor${r.anchor.source === "file" ? " (anchor file)" : r.anchor.source === "database" ? " (as recorded in the database)" : ""}: seq ${r.anchor.seq}, hash ${r.anchor.hash.slice(0, 16)}…${r.anchor.at ? `, published ${formatInZone(r.anchor.at)}` : ""}`
            : "No anchor published yet: removal of the newest rows cannot be ruled out (see README, Audit anchor)."}
        </p>
      )}
    </div>
  );
}
