"use client";
import Link from "next/link";
import { useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import type { BulkRunActionResult } from "@/core/runs/operate/bulk-run-action";
import { RERUNNABLE_STATES } from "@/core/runs/run-states";
import { ApiError, fetchJson } from "../ui/fetch-json";
import { FormField } from "../ui/form-field";
import { ModalDialog } from "../ui/modal-dialog";
import { formatInZone } from "../ui/time-format";
import { usePickedTeam } from "../ui/use-picked-team";
import type { RunFilters } from "./runs-queries";

type Action = "cancel" | "rerun";

const WHAT: Record<Action, { title: string; verb: string; states: string }> = {
  cancel: { title: "Cancel the active runs of this schedule", verb: "cancel", states: "queued, running and retrying" },
  rerun: { title: "Re-run the failed runs of this range", verb: "re-run", states: "failed" },
};

/**
 * Bulk actions on the filtered runs list: cancel every queued/running run of the chosen schedule, or re-run every
 * failed run planned in the chosen range (each as a new attempt of its occurrence). A dry-run count comes first;
 * the outcome is reported per run.
 */
export function BulkActions({ filters }: { filters: RunFilters }) {
  const qc = useQueryClient();
  // The header's team switcher narrows the runs acted on as it narrows the list above.
  const team = usePickedTeam();
  const [action, setAction] = useState<Action | null>(null);
  const [reason, setReason] = useState("");
  const [dry, setDry] = useState<BulkRunActionResult | null>(null);
  const [result, setResult] = useState<BulkRunActionResult | null>(null);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [busy, setBusy] = useState(false);

  // The states filtered on, when every one of them can be re-run (e.g. "failed or timed out"); else failed runs.
  const filtered = (filters.state ?? "").split(",").filter(Boolean);
  const rerunStates =
    filtered.length > 0 && filtered.every((st) => (RERUNNABLE_STATES as readonly string[]).includes(st)) ? filtered : ["failed"];
  const rerunWords = rerunStates.map((st) => st.replace("_", " ")).join(" or ");
  const body = (a: Action) =>
    a === "cancel"
      ? { action: a, scheduleId: filters.scheduleId, ...(team ? { team } : {}) }
      : {
          action: a,
          from: filters.from,
          to: filters.to,
          states: rerunStates,
          ...(filters.scheduleId ? { scheduleId: filters.scheduleId } : {}),
          ...(team ? { team } : {}),
        };

  async function open(a: Action) {
    setAction(a);
    setReason("");
    setDry(null);
    setResult(null);
    setError(null);
    try {
      setDry(await fetchJson<BulkRunActionResult>("/api/runs/bulk", { method: "POST", json: { ...body(a), dryRun: true } }));
    } catch (err) {
      setError(err as Error);
    }
  }
  const close = () => setAction(null);

  async function confirm() {
    if (!action) return;
    if (reason.trim() === "") {
      setError(
        new ApiError(422, "validation_failed", "Say why.", { reason: "Say why: the reason goes to each run's trace and the audit log." }),
      );
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const r = await fetchJson<BulkRunActionResult>("/api/runs/bulk", {
        method: "POST",
        json: { ...body(action), reason: reason.trim() },
      });
      setResult(r);
      await qc.invalidateQueries({ queryKey: ["runs"] });
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  }

  const general = error && !(error instanceof ApiError && error.fields?.reason) ? error.message : null;
  const w = action ? WHAT[action] : null;
  return (
    <>
      <div className="row actions" role="toolbar" aria-label="Bulk actions" data-testid="bulk-actions">
        <span className="muted small">Bulk:</span>
        <button
          type="button"
          className="small-button"
          disabled={!filters.scheduleId}
          title={filters.scheduleId ? undefined : "Choose a schedule first"}
          onClick={() => void open("cancel")}
          data-testid="bulk-cancel"
        >
          ⊘ Cancel active runs of this schedule…
        </button>
        <button
          type="button"
          className="small-button"
          disabled={!filters.from || !filters.to}
          title={filters.from && filters.to ? undefined : "Set Planned from and to first"}
          onClick={() => void open("rerun")}
          data-testid="bulk-rerun"
        >
          ⟳ Re-run {rerunWords} runs in this range…
        </button>
      </div>
      {action && w && (
        <ModalDialog
          open
          title={`${w.title}?`}
          onClose={close}
          onSubmit={() => void (result ? close() : confirm())}
          testId="bulk-dialog"
          actions={
            result ? (
              <button type="submit" className="primary" data-testid="bulk-done">
                Done
              </button>
            ) : (
              <button
                type="submit"
                className={action === "cancel" ? "danger" : "primary"}
                disabled={busy || !dry || dry.count === 0}
                data-testid="confirm-bulk"
              >
                {busy ? "Working…" : `${w.verb[0]!.toUpperCase()}${w.verb.slice(1)} ${dry?.count ?? "…"} run(s)`}
              </button>
            )
          }
        >
          {!dry && !error && <p className="muted">Counting the runs it would {w.verb}…</p>}
          {dry && !result && (
            <p data-testid="bulk-preview">
              <strong data-testid="bulk-count">{dry.count}</strong> {action === "cancel" ? w.states : rerunWords} run(s)
              {action === "rerun" && filters.from && filters.to && (
                <>
                  {" "}
                  planned {formatInZone(filters.from)} – {formatInZone(filters.to)}
                </>
              )}{" "}
              will be{" "}
              {action === "cancel"
                ? "cancelled"
                : "re-run, each as the next attempt of its occurrence (same key: ctx.once effects do not repeat)"}
              . At most 500 per action.
            </p>
          )}
          {!result && (
            <FormField
              label="Reason"
              error={error instanceof ApiError ? error.fields?.reason : undefined}
              hint="Required. Recorded for every run and for the bulk action in the audit log."
            >
              <input
                value={reason}
                onChange={(e) => {
                  setReason(e.target.value);
                  setError(null);
                }}
                autoComplete="off"
                data-testid="bulk-reason"
              />
            </FormField>
          )}
          {result && (
            <div data-testid="bulk-result">
              <p>
                <strong>{result.succeeded}</strong> of {result.count} run(s){" "}
                {action === "cancel" ? "cancelled (or told to stop)" : "re-run"}
                {result.failed > 0 && (
                  <>
                    ; <strong className="warn-text">{result.failed}</strong> could not be
                  </>
                )}
                .
              </p>
              {result.failed > 0 && (
                <ul className="small" data-testid="bulk-failures">
                  {result.items.flatMap((i) =>
                    i.ok
                      ? []
                      : [
                          <li key={i.runId}>
                            <Link href={`/runs/${i.runId}`} className="mono">
                              {i.runId.slice(0, 8)}
                            </Link>
                            : {i.error.message}
                          </li>,
                        ],
                  )}
                </ul>
              )}
            </div>
          )}
          {general && (
            <p className="error" role="alert">
              ✕ {general}
            </p>
          )}
        </ModalDialog>
      )}
    </>
  );
}
