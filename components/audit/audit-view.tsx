"use client";
import { useInfiniteQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { ApiError } from "../ui/fetch-json";
import { usePickedTeam } from "../ui/use-picked-team";
import { AuditFilters } from "./audit-filters";
import { AuditTable } from "./audit-table";
import { VerifyPanel } from "./verify-panel";
import { auditQuery, filterFromParams, filterToParams, type AuditFilterValues } from "./audit-queries";

/** The audit page: filters live in the URL, so /audit?target=schedule:<id> is a working deep link. */
export function AuditView() {
  const params = useSearchParams();
  const router = useRouter();
  const path = usePathname();
  const filter = filterFromParams(new URLSearchParams(params.toString()));
  const team = usePickedTeam();
  const q = useInfiniteQuery(auditQuery(filter, team));
  const events = q.data?.pages.flatMap((p) => p.events) ?? [];
  const qs = filterToParams(filter).toString();
  // The export carries the header's team switcher like the list: the CSV holds the rows shown here.
  const exportParams = filterToParams(filter);
  if (team) exportParams.set("team", team);
  const exportQs = exportParams.toString();
  const apply = (f: AuditFilterValues) => {
    const next = filterToParams(f).toString();
    router.replace(next ? `${path}?${next}` : path);
  };
  const fieldErrors = q.error instanceof ApiError ? (q.error.fields ?? {}) : {};
  return (
    <>
      <AuditFilters key={qs} value={filter} fieldErrors={fieldErrors} onApply={apply} />
      <div className="row" style={{ marginBottom: 12 }}>
        <VerifyPanel />
        <span className="spacer" />
        <a className="button" href={`/api/audit/export.csv${exportQs ? `?${exportQs}` : ""}`} download data-testid="audit-export">
          Export CSV{exportQs ? " (this filter)" : ""}
        </a>
      </div>
      {q.error && !Object.keys(fieldErrors).length && (
        <p className="error" role="alert">
          {q.error.message}
        </p>
      )}
      {q.isPending && <p className="muted">Loading…</p>}
      {q.data && events.length === 0 && <p className="muted">No audit events match these filters.</p>}
      {events.length > 0 && <AuditTable events={events} />}
      {q.hasNextPage && (
        <div className="row" style={{ justifyContent: "center", marginTop: 12 }}>
          <button type="button" onClick={() => q.fetchNextPage()} disabled={q.isFetchingNextPage}>
            {q.isFetchingNextPage ? "Loading…" : "Load more"}
          </button>
        </div>
      )}
    </>
  );
}
