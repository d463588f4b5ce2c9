"use client";
import { useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, fetchJson } from "../ui/fetch-json";
import { FormField } from "../ui/form-field";
import { ModalDialog } from "../ui/modal-dialog";
import { formatInZone } from "../ui/time-format";
import { useCan } from "../ui/use-can";
import { maintenanceQuery, type MaintenanceResultView } from "./maintenance-queries";

const RADIO_LABEL = { display: "inline-flex", gap: 6, alignItems: "center", marginRight: 16, whiteSpace: "nowrap" } as const;

type Mode = { kind: "start" } | { kind: "resume"; tag: string | null };

/**
 * The schedules page's Maintenance control (operators): pause every schedule, or every schedule with a tag, with
 * a reason and an optional until — after a dry run that lists what will be paused — and resume a maintenance after
 * a dry run that shows, per schedule, what its misfire policy will run. Viewers see no button.
 */
export function MaintenanceControl() {
  const canOperate = useCan("operate");
  const qc = useQueryClient();
  const windows = useQuery({ ...maintenanceQuery(), enabled: canOperate });
  const [mode, setMode] = useState<Mode | null>(null);
  const [scope, setScope] = useState<"all" | "tag">("all");
  const [tag, setTag] = useState("");
  const [reason, setReason] = useState("");
  const [until, setUntil] = useState("");
  const [dry, setDry] = useState<MaintenanceResultView | null>(null);
  const [done, setDone] = useState<MaintenanceResultView | null>(null);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [busy, setBusy] = useState(false);
  if (!canOperate) return null;

  const open = (m: Mode) => {
    setMode(m);
    setDry(null);
    setDone(null);
    setError(null);
    setReason("");
    if (m.kind === "resume") void preview(m);
  };
  const body = (m: Mode) =>
    m.kind === "start"
      ? {
          action: "pause",
          ...(scope === "tag" ? { tag: tag.trim() } : {}),
          reason: reason.trim(),
          ...(until ? { until: new Date(until).toISOString() } : {}),
        }
      : { action: "resume", ...(m.tag ? { tag: m.tag } : {}), ...(reason.trim() ? { reason: reason.trim() } : {}) };

  async function call(m: Mode, dryRun: boolean) {
    setBusy(true);
    setError(null);
    try {
      const r = await fetchJson<MaintenanceResultView>("/api/schedules/maintenance", { method: "POST", json: { ...body(m), dryRun } });
      if (dryRun) setDry(r);
      else {
        setDone(r);
        await qc.invalidateQueries({ queryKey: ["maintenance"] });
        await qc.invalidateQueries({ queryKey: ["schedules"] });
      }
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  }
  const preview = (m: Mode) => call(m, true);
  const fields = error instanceof ApiError ? (error.fields ?? {}) : {};

  const list = windows.data?.maintenance ?? [];
  return (
    <>
      <button type="button" onClick={() => open({ kind: "start" })} data-testid="maintenance-button">
        Maintenance…
      </button>
      {list.map((w) => (
        <button
          key={w.id}
          type="button"
          className="primary"
          onClick={() => open({ kind: "resume", tag: w.tag })}
          data-testid="maintenance-resume"
        >
          Resume {w.tag ? `tag ${w.tag}` : "all"}…
        </button>
      ))}
      <ModalDialog
        open={mode !== null}
        title={
          mode?.kind === "resume" ? `End maintenance of ${mode.tag ? `tag ${mode.tag}` : "all schedules"}` : "Maintenance: pause schedules"
        }
        onClose={() => setMode(null)}
        onSubmit={() => mode && !done && (dry ? call(mode, false) : preview(mode))}
        testId="maintenance-dialog"
        actions={
          done ? null : (
            <button type="submit" className="primary" disabled={busy} data-testid="maintenance-confirm">
              {!dry
                ? "Preview"
                : mode?.kind === "resume"
                  ? `Resume ${dry.resumed.length} schedule${dry.resumed.length === 1 ? "" : "s"}`
                  : `Pause ${dry.paused.length} schedule${dry.paused.length === 1 ? "" : "s"}`}
            </button>
          )
        }
      >
        {mode?.kind === "start" && !done && (
          <>
            <p className="muted">
              Pauses every schedule of the scope in one action (each is audited, and so is the action). Runs already running finish; nothing
              new starts until you resume here (or at the until time). Schedules already paused stay as they are.
            </p>
            <div className="row">
              <label style={RADIO_LABEL}>
                <input type="radio" name="scope" checked={scope === "all"} onChange={() => (setScope("all"), setDry(null))} /> All schedules
              </label>
              <label style={RADIO_LABEL}>
                <input
                  type="radio"
                  name="scope"
                  checked={scope === "tag"}
                  onChange={() => (setScope("tag"), setDry(null))}
                  data-testid="scope-tag"
                />{" "}
                Schedules with the tag
              </label>
            </div>
            {scope === "tag" && (
              <FormField label="Tag" error={fields["tag"]} testId="maintenance-tag">
                <input
                  value={tag}
                  onChange={(e) => (setTag(e.target.value), setDry(null))}
                  placeholder="e.g. team:payments"
                  autoComplete="off"
                />
              </FormField>
            )}
            <FormField
              label="Reason"
              error={fields["reason"]}
              hint="Shown on every page while maintenance lasts."
              testId="maintenance-reason"
            >
              <input value={reason} onChange={(e) => setReason(e.target.value)} autoComplete="off" />
            </FormField>
            <FormField
              label="Until (optional)"
              error={fields["until"]}
              hint="Every schedule resumes by itself then, by its misfire policy."
            >
              <input type="datetime-local" value={until} onChange={(e) => (setUntil(e.target.value), setDry(null))} />
            </FormField>
          </>
        )}
        {mode?.kind === "resume" && !done && (
          <FormField label="Reason (optional)" error={fields["reason"]}>
            <input value={reason} onChange={(e) => setReason(e.target.value)} autoComplete="off" />
          </FormField>
        )}
        {error && Object.keys(fields).length === 0 && (
          <p className="error" role="alert" data-testid="maintenance-error">
            {error.message}
          </p>
        )}
        {dry && !done && <DryRun r={dry} />}
        {done && (
          <p className="ok-text" role="status" data-testid="maintenance-done">
            {done.action === "pause"
              ? `Paused ${done.paused.length} schedule${done.paused.length === 1 ? "" : "s"}.`
              : `Resumed ${done.resumed.length} schedule${done.resumed.length === 1 ? "" : "s"}; ${done.count} run${done.count === 1 ? "" : "s"} enqueued.`}
          </p>
        )}
      </ModalDialog>
    </>
  );
}

function DryRun({ r }: { r: MaintenanceResultView }) {
  if (r.action === "pause") {
    return (
      <div data-testid="maintenance-preview">
        <p>
          <strong>
            Will pause {r.paused.length} schedule{r.paused.length === 1 ? "" : "s"}
          </strong>
          {r.paused.length > 0 && `: ${namesOf(r.paused)}`}.
        </p>
        {r.skipped.length > 0 && (
          <p className="muted">
            Already paused, left as they are:{" "}
            {r.skipped
              .slice(0, PREVIEW_ROWS)
              .map((s) => `${s.name} (by ${s.pausedBy ?? "unknown"}: ${s.reason ?? "no reason"})`)
              .join("; ")}
            {r.skipped.length > PREVIEW_ROWS && ` and ${r.skipped.length - PREVIEW_ROWS} more`}.
          </p>
        )}
      </div>
    );
  }
  // At a thousand schedules the table shows those that run something first, and a bounded number of rows.
  const shown = [...r.resumed].sort((a, b) => b.count - a.count).slice(0, PREVIEW_ROWS);
  const hidden = r.resumed.length - shown.length;
  return (
    <div data-testid="maintenance-preview">
      <p>
        <strong>
          On resume: {r.count} run{r.count === 1 ? "" : "s"} start now over {r.resumed.length} schedule{r.resumed.length === 1 ? "" : "s"}
        </strong>{" "}
        (each by its misfire policy; the other fires of the pause are recorded paused).
      </p>
      <table className="table">
        <thead>
          <tr>
            <th>Schedule</th>
            <th>Misfire policy</th>
            <th>Runs now</th>
            <th>Recorded paused</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((s) => (
            <tr key={s.id} data-testid="resume-preview-row" data-name={s.name}>
              <td>{s.name}</td>
              <td>{s.misfirePolicy}</td>
              <td>
                {s.count}
                {s.plannedAt.length > 0 && <div className="small muted">{s.plannedAt.map((p) => formatInZone(p)).join(", ")}</div>}
              </td>
              <td>{s.recordedPaused}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {hidden > 0 && (
        <p className="small muted" data-testid="resume-preview-more">
          …and {hidden} more schedule{hidden === 1 ? "" : "s"} (the counts above include them).
        </p>
      )}
    </div>
  );
}

const PREVIEW_ROWS = 100;

function namesOf(xs: { name: string }[]): string {
  const names = xs.slice(0, PREVIEW_ROWS).map((s) => s.name);
  return xs.length > PREVIEW_ROWS ? `${names.join(", ")} and ${xs.length - PREVIEW_ROWS} more` : names.join(", ");
}
