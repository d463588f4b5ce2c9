"use client";
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { RerunPreview } from "@/core/runs/operate/rerun-run";
import type { Jsonify } from "@/core/jsonify";
import { fetchJson } from "../ui/fetch-json";
import { FormField } from "../ui/form-field";
import { ModalDialog } from "../ui/modal-dialog";
import { useRunAction } from "./use-run-action";

interface Props {
  runId: string;
  label: string;
  open: boolean;
  onClose: () => void;
}

/**
 * Re-run one occurrence, previewed first: the attempt it will be, its (unchanged) idempotency key, and the
 * ctx.once effects already recorded for it — those will not repeat. A required reason goes to the run's trace
 * and the audit log.
 */
export function RerunDialog({ runId, label, open, onClose }: Props) {
  const preview = useQuery({
    queryKey: ["runs", "rerun-preview", runId],
    queryFn: () => fetchJson<Jsonify<RerunPreview>>(`/api/runs/${runId}/rerun`),
    enabled: open,
    staleTime: 0,
  });
  const [withDownstream, setWithDownstream] = useState(false);
  const { reason, setReason, error, busy, confirm } = useRunAction(`/api/runs/${runId}/rerun`, onClose, { withDownstream });
  const p = preview.data;

  return (
    <ModalDialog
      open={open}
      title={`Re-run ${label}?`}
      onClose={onClose}
      onSubmit={() => void confirm()}
      testId="rerun-dialog"
      actions={
        <button type="submit" className="primary" disabled={busy || !p || p.refusal !== null} data-testid="confirm-rerun">
          {busy ? "Re-running…" : p ? `Re-run as attempt ${p.nextAttempt}` : "Re-run"}
        </button>
      }
    >
      {preview.isLoading && <p className="muted">Working out what a re-run will do…</p>}
      {preview.error && <p className="error">Could not preview: {preview.error.message}</p>}
      {p && (
        <div data-testid="rerun-preview">
          {p.refusal ? (
            <p className="error" role="alert" data-testid="rerun-refusal">
              ✕ {p.refusal.message}
            </p>
          ) : (
            <>
              <p>
                This run is <strong>{p.state}</strong>. The re-run is <strong data-testid="rerun-attempt">attempt {p.nextAttempt}</strong>{" "}
                of the same occurrence, with the same idempotency key <span className="mono small">{p.idempotencyKey}</span>. It starts now,
                also if the schedule is paused; it is left out of lateness alerts and the lateness p95.
              </p>
              <p data-testid="rerun-once-effects">
                {p.onceEffects === 0 ? (
                  <>No ctx.once effects are recorded for this occurrence yet: everything the handler does will happen.</>
                ) : (
                  <>
                    <strong>{p.onceEffects}</strong> ctx.once effect(s) already recorded for this occurrence: those effects will not repeat.
                  </>
                )}
              </p>
              {p.onceKeys.length > 0 && (
                <ul className="small mono">
                  {p.onceKeys.map((k) => (
                    <li key={k}>{k}</li>
                  ))}
                </ul>
              )}
              {p.reruns > 0 && <p className="muted small">Re-run {p.reruns} time(s) before.</p>}
              {p.downstream.length > 0 && (
                <div data-testid="rerun-downstream">
                  <label className="row">
                    <input
                      type="checkbox"
                      checked={withDownstream}
                      onChange={(e) => setWithDownstream(e.target.checked)}
                      data-testid="rerun-with-downstream"
                    />{" "}
                    Also re-run its downstream occurrences ({p.downstream.filter((d) => d.action === "rerun").length}): they wait for this
                    re-run again, then run as a new attempt
                  </label>
                  <ul className="small">
                    {p.downstream.map((d) => (
                      <li key={d.runId}>
                        <Link href={`/runs/${d.runId}`}>{d.scheduleName}</Link> planned {new Date(d.plannedAt).toLocaleString()} —{" "}
                        {d.action === "rerun" ? `${d.state}, would re-run` : "already waiting for it"}
                      </li>
                    ))}
                  </ul>
                </div>
              )}
            </>
          )}
        </div>
      )}
      <FormField label="Reason" error={error ?? undefined} hint="Required. Shown in the run's trace and in the audit log.">
        <input
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          placeholder="e.g. the vendor API is back"
          autoComplete="off"
          data-testid="rerun-reason"
        />
      </FormField>
    </ModalDialog>
  );
}
