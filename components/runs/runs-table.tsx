"use client";
import Link from "next/link";
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { isLate } from "@/core/runs/lateness";
import { CANCELLABLE_STATES, RERUNNABLE_STATES } from "@/core/runs/run-states";
import { waitingHint, waitingText } from "@/core/runs/waiting-text";
import { RunStatePill } from "../ui/run-state-pill";
import { formatClock, formatDuration, formatInZone, formatRelative } from "../ui/time-format";
import { useNow } from "../ui/use-now";
import { useCanIn } from "../ui/use-can";
import { usePickedTeam } from "../ui/use-picked-team";
import { CancelRunDialog } from "./cancel-run-dialog";
import { cancelStage } from "./cancel-stage";
import { RerunDialog } from "./rerun-dialog";
import { runsQuery, type RunFilters, type RunView } from "./runs-queries";

/** In flight first (what an operator may need to act on), then newest planned first. */
const PRIORITY: Record<string, number> = { zombie: 0, running: 1, retrying: 2, queued: 3 };

export function sortRunsForOperators(runs: RunView[]): RunView[] {
  // The list is read in two phases (in flight, then the rest); a run finishing between them can appear twice.
  const unique = [...new Map(runs.map((r) => [r.id, r])).values()];
  return unique.sort((a, b) => (PRIORITY[a.state] ?? 9) - (PRIORITY[b.state] ?? 9) || b.plannedAt.localeCompare(a.plannedAt));
}

interface Props {
  filters: RunFilters;
  /** Hide the schedule column (on a schedule's page). */
  hideSchedule?: boolean;
  limit?: number;
}

export function RunsTable({ filters, hideSchedule, limit }: Props) {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const team = usePickedTeam();
  const q = useQuery({ ...runsQuery({ ...filters, team, ...(limit ? { limit } : {}) }, cursor), placeholderData: (prev) => prev });
  const now = useNow(1000);
  const [cancelling, setCancelling] = useState<RunView | null>(null);
  const [rerunning, setRerunning] = useState<RunView | null>(null);
  const canOperateIn = useCanIn("operate");

  if (q.isLoading) return <p className="muted">Loading runs…</p>;
  if (q.error) return <p className="error">Could not load runs: {q.error.message}</p>;
  const runs = sortRunsForOperators(q.data?.runs ?? []);

  return (
    <>
      {runs.length === 0 ? (
        <p className="muted" data-testid="runs-empty">
          {hideSchedule && !filters.state && !filters.lateness && !filters.from && !filters.to
            ? "No runs of this schedule yet; its coming fires are listed above."
            : "No runs match these filters."}
        </p>
      ) : (
        <table className="table" data-testid="runs-table">
          <thead>
            <tr>
              <th>State</th>
              {!hideSchedule && <th>Schedule</th>}
              <th>Planned</th>
              <th>Started (lateness)</th>
              <th>Finished (duration)</th>
              <th>Attempt</th>
              <th>Worker</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => {
              const stage = cancelStage(r);
              const lateness = r.latenessMs ?? (r.startedAt ? Date.parse(r.startedAt) - Date.parse(r.plannedAt) : null);
              const canCancel = (CANCELLABLE_STATES as readonly string[]).includes(r.state) && !stage;
              return (
                <tr key={r.id} data-testid="run-row" data-run-id={r.id} data-state={r.state}>
                  <td>
                    <Link href={`/runs/${r.id}`} aria-label={`Open run ${r.id}`}>
                      <RunStatePill state={r.state} />
                    </Link>
                    {stage && (
                      <div className="small warn-text" data-testid="cancel-stage" aria-live="polite">
                        ⊘ {stage}
                      </div>
                    )}
                    {r.waitReason && r.state === "queued" && (
                      <div className="small muted" data-testid="run-waiting" title={waitingHint(r.waitReason, r.concurrencyGroup ?? null)}>
                        {waitingText(r.waitReason, r.concurrencyGroup ?? null)}
                      </div>
                    )}
                    {r.kind !== "scheduled" && <div className="small muted">{r.kind}</div>}
                    {r.reruns > 0 && <div className="small muted">⟳ re-run ×{r.reruns}</div>}
                  </td>
                  {!hideSchedule && (
                    <td>
                      <Link href={`/schedules/${r.scheduleId}`}>{r.scheduleName ?? r.scheduleId.slice(0, 8)}</Link>
                      <div className="small muted mono">{r.handler}</div>
                    </td>
                  )}
                  <td title={formatInZone(r.plannedAt)}>
                    <div className="mono">{formatClock(r.plannedAt)}</div>
                    <div className="small muted">{formatRelative(r.plannedAt, now)}</div>
                  </td>
                  <td>
                    {r.startedAt ? (
                      <>
                        <div className="mono">{formatClock(r.startedAt)}</div>
                        <div className={`small ${isLate(lateness, r.startJitterMs) ? "warn-text" : "muted"}`}>
                          {isLate(lateness, r.startJitterMs) ? "◷ late " : "+"}
                          {formatDuration(lateness)}
                        </div>
                      </>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                  <td>
                    {r.finishedAt ? (
                      <>
                        <div className="mono">{formatClock(r.finishedAt)}</div>
                        <div className="small muted">
                          {formatDuration(r.durationMs ?? (r.startedAt ? Date.parse(r.finishedAt) - Date.parse(r.startedAt) : null))}
                        </div>
                      </>
                    ) : r.startedAt ? (
                      <span>
                        <span aria-hidden="true">▶</span> running {formatDuration(now - Date.parse(r.startedAt))}
                      </span>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                  <td>
                    {r.attempt}/{r.maxAttempts}
                    {r.nextAttemptAt && r.state === "retrying" && (
                      <div className="small muted">next {formatRelative(r.nextAttemptAt, now)}</div>
                    )}
                  </td>
                  <td className="mono small">{r.workerId ?? "—"}</td>
                  <td>
                    {canOperateIn(r.teamId) && canCancel && (
                      <button type="button" className="danger small-button" onClick={() => setCancelling(r)} data-testid="cancel-run">
                        Cancel
                      </button>
                    )}
                    {canOperateIn(r.teamId) && (RERUNNABLE_STATES as readonly string[]).includes(r.state) && (
                      <button type="button" className="small-button" onClick={() => setRerunning(r)} data-testid="rerun-run">
                        ⟳ Re-run
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <div className="row pager">
        {cursors.length > 0 && (
          <button type="button" onClick={() => setCursors((c) => c.slice(0, -1))}>
            ← Newer
          </button>
        )}
        {q.data?.nextCursor && (
          <button type="button" onClick={() => setCursors((c) => [...c, q.data!.nextCursor!])}>
            Older →
          </button>
        )}
      </div>
      {rerunning && (
        <RerunDialog
          runId={rerunning.id}
          label={`${rerunning.scheduleName ?? "run"} planned ${formatClock(rerunning.plannedAt)}`}
          open
          onClose={() => setRerunning(null)}
        />
      )}
      {cancelling && (
        <CancelRunDialog
          runId={cancelling.id}
          label={`${cancelling.scheduleName ?? "run"} planned ${formatClock(cancelling.plannedAt)}`}
          state={cancelling.state}
          open
          onClose={() => setCancelling(null)}
        />
      )}
    </>
  );
}
