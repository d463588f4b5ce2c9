"use client";
import { useRouter, useSearchParams } from "next/navigation";
import { useCan } from "../ui/use-can";
import { BulkActions } from "./bulk-actions";
import { RunsFilters } from "./runs-filters";
import { RunsTable } from "./runs-table";
import type { RunFilters } from "./runs-queries";

/** The runs page: filters live in the URL, so a link such as /runs?state=zombie opens filtered. */
export function RunsView() {
  const params = useSearchParams();
  const router = useRouter();
  const canOperate = useCan("operate");
  const filters: RunFilters = {
    state: params.get("state") ?? undefined,
    scheduleId: params.get("scheduleId") ?? undefined,
    from: params.get("from") ?? undefined,
    to: params.get("to") ?? undefined,
    lateness: params.get("lateness") ?? undefined,
    tag: params.get("tag") ?? undefined,
  };
  const onChange = (f: RunFilters) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(f)) if (v) p.set(k, String(v));
    router.replace(`/runs${p.size ? `?${p}` : ""}`);
  };
  return (
    <>
      <RunsFilters filters={filters} onChange={onChange} />
      {/* Bulk actions select by schedule and time, not by tag: offered only when what they act on is what is shown. */}
      {canOperate && !filters.tag && <BulkActions filters={filters} />}
      <RunsTable key={JSON.stringify(filters)} filters={filters} />
    </>
  );
}
