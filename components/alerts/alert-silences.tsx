"use client";
import { useState } from "react";
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Jsonify } from "@/core/jsonify";
import type { AlertSilenceView as CoreSilence } from "@/core/alerts/alert-silences";
import { ALERT_KINDS, ALERT_KIND_INFO, type AlertKind } from "@/core/alerts/alert-kinds";
import { ApiError, fetchJson } from "../ui/fetch-json";
import { FormField } from "../ui/form-field";
import { ModalDialog } from "../ui/modal-dialog";
import { formatInZone } from "../ui/time-format";
import { useCan } from "../ui/use-can";

type SilenceView = Jsonify<CoreSilence>;

// Only the kinds raised per schedule (no_worker and planner_lag are system-wide).
const SCHEDULE_KINDS = ALERT_KINDS.filter((k) => k !== "no_worker" && k !== "planner_lag");
const DURATIONS: [number, string][] = [
  [30, "30 minutes"],
  [60, "1 hour"],
  [240, "4 hours"],
  [1440, "1 day"],
  [10080, "7 days"],
];

const silencesQuery = (scheduleId: string) =>
  queryOptions({
    queryKey: ["alerts", "silences", scheduleId],
    queryFn: () => fetchJson<{ silences: SilenceView[] }>(`/api/schedules/${scheduleId}/silences`),
    refetchInterval: 10_000,
  });

/** The silences in force on a schedule; operators can add one or end one early. */
export function AlertSilences({ scheduleId }: { scheduleId: string }) {
  const canOperate = useCan("operate");
  const client = useQueryClient();
  const { data } = useQuery(silencesQuery(scheduleId));
  const [open, setOpen] = useState(false);
  const [kind, setKind] = useState<AlertKind>("late");
  const [minutes, setMinutes] = useState(60);
  const [reason, setReason] = useState("");
  const refresh = () => client.invalidateQueries({ queryKey: ["alerts", "silences", scheduleId] });
  const create = useMutation({
    mutationFn: () => fetchJson(`/api/schedules/${scheduleId}/silences`, { method: "POST", json: { kind, minutes, reason } }),
    onSuccess: async () => {
      setOpen(false);
      setReason("");
      await refresh();
    },
  });
  const end = useMutation({
    mutationFn: (id: string) => fetchJson(`/api/schedules/${scheduleId}/silences/${id}`, { method: "DELETE" }),
    onSuccess: refresh,
  });
  const silences = data?.silences ?? [];
  const fieldError = (k: string) => (create.error instanceof ApiError ? create.error.fields?.[k] : undefined);
  return (
    <div className="row silences" data-testid="alert-silences">
      {silences.length === 0 ? (
        <span className="muted small">No alert kind is silenced.</span>
      ) : (
        silences.map((s) => (
          <span key={s.id} className="pill warn" data-testid="alert-silence" data-kind={s.kind} title={`“${s.reason}” — ${s.createdBy}`}>
            {ALERT_KIND_INFO[s.kind as AlertKind]?.label ?? s.kind} silenced until {formatInZone(s.until)}
            {canOperate && (
              <button
                type="button"
                className="link-button"
                onClick={() => end.mutate(s.id)}
                disabled={end.isPending}
                aria-label={`End the silence of ${s.kind}`}
                data-testid="end-silence"
              >
                ✕
              </button>
            )}
          </span>
        ))
      )}
      {canOperate && (
        <button type="button" className="small-button" onClick={() => setOpen(true)} data-testid="silence-alerts">
          Silence…
        </button>
      )}
      {canOperate && (
        <ModalDialog
          open={open}
          title="Silence an alert kind"
          onClose={() => setOpen(false)}
          onSubmit={() => create.mutate()}
          testId="silence-dialog"
          actions={
            <button type="submit" className="primary" disabled={create.isPending} data-testid="confirm-silence">
              Silence
            </button>
          }
        >
          <p className="muted small">The alert is still raised and shown here; no webhook is sent for it while silenced. Audited.</p>
          <div className="grid-2">
            <FormField label="Alert kind" error={fieldError("kind")}>
              <select value={kind} onChange={(e) => setKind(e.target.value as AlertKind)}>
                {SCHEDULE_KINDS.map((k) => (
                  <option key={k} value={k}>
                    {ALERT_KIND_INFO[k].label}
                  </option>
                ))}
              </select>
            </FormField>
            <FormField label="For" error={fieldError("minutes")}>
              <select value={minutes} onChange={(e) => setMinutes(Number(e.target.value))}>
                {DURATIONS.map(([m, label]) => (
                  <option key={m} value={m}>
                    {label}
                  </option>
                ))}
              </select>
            </FormField>
          </div>
          <FormField label="Reason" error={fieldError("reason")}>
            <input
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              placeholder="e.g. vendor maintenance until 14:00"
              autoComplete="off"
            />
          </FormField>
          {create.error && !(create.error instanceof ApiError && create.error.fields) && (
            <p className="error" role="alert">
              {create.error.message}
            </p>
          )}
        </ModalDialog>
      )}
    </div>
  );
}
