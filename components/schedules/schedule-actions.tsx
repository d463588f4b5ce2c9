"use client";
import Link from "next/link";
import { useState, type ReactNode } from "react";
import { useRouter } from "next/navigation";
import { useQueryClient } from "@tanstack/react-query";
import { ApiError, fetchJson } from "../ui/fetch-json";
import { FormField } from "../ui/form-field";
import { ModalDialog } from "../ui/modal-dialog";
import { formatInZone } from "../ui/time-format";
import { MISFIRE_POLICIES } from "./policy-fields";
import { toLocalInput } from "./schedule-form-values";
import type { ActionResultView, ScheduleView } from "./schedules-queries";
import { TriggerDialog, TriggeredNotice } from "./trigger-dialog";
import { DryRunTimeline } from "./dry-run-timeline";
import { useCan } from "../ui/use-can";

type Dialog = "pause" | "resume" | "backfill" | "delete" | "trigger" | null;

const localToIso = (v: string) => (v ? new Date(v).toISOString() : "");

/** Pause, resume (with a dry-run count first), trigger now, backfill (range → count → confirm) and delete: for
 * operators and admins of the schedule's team; a viewer there sees none of them. */
export function ScheduleActions({ schedule }: { schedule: ScheduleView }) {
  const canOperate = useCan("operate", schedule.teamId);
  return canOperate ? <OperatorScheduleActions schedule={schedule} /> : null;
}

function OperatorScheduleActions({ schedule }: { schedule: ScheduleView }) {
  const qc = useQueryClient();
  const router = useRouter();
  const [open, setOpen] = useState<Dialog>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [notice, setNotice] = useState<ReactNode>(null);
  const [reason, setReason] = useState("");
  const [until, setUntil] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [dry, setDry] = useState<ActionResultView | null>(null);
  const base = `/api/schedules/${schedule.id}`;

  const refresh = async () => {
    await qc.invalidateQueries({ queryKey: ["schedules"] });
    await qc.invalidateQueries({ queryKey: ["runs"] });
    await qc.invalidateQueries({ queryKey: ["overview"] });
  };
  const show = (d: Dialog) => {
    setError(null);
    setDry(null);
    setOpen(d);
  };
  const close = () => {
    setOpen(null);
    setDry(null);
    setError(null);
  };
  async function act<T>(fn: () => Promise<T>): Promise<T | undefined> {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (err) {
      setError(err as Error);
      return undefined;
    } finally {
      setBusy(false);
    }
  }
  const fieldError = (k: string) => (error instanceof ApiError ? error.fields?.[k] : undefined);
  const generalError = error && !(error instanceof ApiError && error.fields && Object.keys(error.fields).length > 0) ? error.message : null;

  async function pause() {
    const r = await act(() =>
      fetchJson<ActionResultView>(`${base}/pause`, { method: "POST", json: { reason, ...(until ? { until: localToIso(until) } : {}) } }),
    );
    if (!r) return;
    await refresh();
    setNotice(<>Paused. {r.held ? `${r.held} not-started run(s) are held.` : ""}</>);
    close();
  }

  async function resumePreview() {
    const r = await act(() => fetchJson<ActionResultView>(`${base}/resume`, { method: "POST", json: { dryRun: true } }));
    if (r) setDry(r);
  }
  async function resume() {
    const r = await act(() => fetchJson<ActionResultView>(`${base}/resume`, { method: "POST", json: {} }));
    if (!r) return;
    await refresh();
    setNotice(
      <>
        Resumed: {r.count} run(s) enqueued for the missed fires{r.recordedPaused ? `, ${r.recordedPaused} recorded as paused` : ""}.
      </>,
    );
    close();
  }

  async function backfillPreview() {
    const r = await act(() =>
      fetchJson<ActionResultView>(`${base}/backfill`, {
        method: "POST",
        json: { from: localToIso(from), to: localToIso(to), dryRun: true, ...(reason ? { reason } : {}) },
      }),
    );
    if (r) setDry(r);
  }
  async function backfill() {
    const r = await act(() =>
      fetchJson<ActionResultView>(`${base}/backfill`, {
        method: "POST",
        json: { from: localToIso(from), to: localToIso(to), ...(reason ? { reason } : {}) },
      }),
    );
    if (!r) return;
    await refresh();
    setNotice(<>Backfill enqueued {r.count} run(s).</>);
    close();
  }

  async function remove() {
    const r = await act(() => fetchJson(`${base}?revision=${schedule.revision}`, { method: "DELETE" }));
    if (r === undefined) return;
    await refresh();
    router.push("/schedules");
  }

  const paused = schedule.paused !== null;
  return (
    <>
      <div className="row actions" role="toolbar" aria-label="Schedule actions">
        <Link href={`/schedules/${schedule.id}/edit`} className="button" data-testid="edit-schedule">
          ✎ Edit
        </Link>
        {paused ? (
          <button
            type="button"
            className="primary"
            onClick={() => {
              show("resume");
              void resumePreview();
            }}
            data-testid="resume-schedule"
          >
            ▶ Resume…
          </button>
        ) : (
          <button
            type="button"
            onClick={() => {
              setReason("");
              setUntil("");
              show("pause");
            }}
            data-testid="pause-schedule"
          >
            ‖ Pause…
          </button>
        )}
        <button type="button" onClick={() => show("trigger")} disabled={busy} data-testid="trigger-now">
          ⚡ Trigger now…
        </button>
        <button
          type="button"
          onClick={() => {
            setReason("");
            setFrom(toLocalInput(new Date(Date.now() - 3_600_000).toISOString()));
            setTo(toLocalInput(new Date().toISOString()));
            show("backfill");
          }}
          data-testid="backfill-schedule"
        >
          ⟲ Backfill…
        </button>
        <button type="button" className="danger" onClick={() => show("delete")} data-testid="delete-schedule">
          ✕ Delete…
        </button>
      </div>
      {notice && (
        <div className="banner ok" role="status" data-testid="action-notice">
          ✓ {notice}
          <button type="button" className="link-button" onClick={() => setNotice(null)} aria-label="Dismiss">
            ✕
          </button>
        </div>
      )}
      {!open && generalError && (
        <div className="banner bad" role="alert">
          ✕ {generalError}
        </div>
      )}

      <TriggerDialog
        schedule={schedule}
        open={open === "trigger"}
        onClose={close}
        onTriggered={(r) => {
          close();
          setNotice(<TriggeredNotice r={r} />);
        }}
      />

      <ModalDialog
        open={open === "pause"}
        title={`Pause ${schedule.name}`}
        onClose={close}
        onSubmit={() => void pause()}
        testId="pause-dialog"
        actions={
          <button type="submit" className="primary" disabled={busy} data-testid="confirm-pause">
            Pause
          </button>
        }
      >
        <p className="muted">
          Nothing of this schedule starts while it is paused. Fires that fall in the pause are settled by its misfire policy on resume.
        </p>
        <FormField label="Reason" error={fieldError("reason")} hint="Shown on the schedule and in the audit log.">
          <input
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            placeholder="e.g. upstream maintenance until 14:00"
            autoComplete="off"
          />
        </FormField>
        <FormField
          label="Resume automatically at (optional, your local time)"
          error={fieldError("until")}
          hint="Leave empty to stay paused until someone resumes it."
        >
          <input type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
        </FormField>
        {generalError && (
          <p className="error" role="alert">
            ✕ {generalError}
          </p>
        )}
      </ModalDialog>

      <ModalDialog
        open={open === "resume"}
        title={`Resume ${schedule.name}`}
        onClose={close}
        onSubmit={() => void resume()}
        testId="resume-dialog"
        actions={
          <button type="submit" className="primary" disabled={busy || !dry} data-testid="confirm-resume">
            Resume and enqueue {dry ? dry.count : "…"}
          </button>
        }
      >
        {schedule.paused && (
          <p className="muted">
            Paused by {schedule.paused.by ?? "unknown"} since {formatInZone(schedule.paused.at)}
            {schedule.paused.reason ? <> — “{schedule.paused.reason}”</> : null}.
          </p>
        )}
        {!dry && !error && <p className="muted">Working out what the misfire policy will do…</p>}
        {dry && (
          <div data-testid="resume-preview">
            <p>
              Misfire policy <strong>{dry.misfirePolicy ?? schedule.misfirePolicy}</strong>:{" "}
              {MISFIRE_POLICIES[dry.misfirePolicy ?? schedule.misfirePolicy]}
            </p>
            <p className="big-number">
              <strong data-testid="resume-count">{dry.count}</strong> run(s) will be enqueued now
              {dry.recordedPaused ? <>; {dry.recordedPaused} missed fire(s) will be recorded as paused</> : null}.
            </p>
            {dry.plannedAt.length > 0 && (
              <ul className="small mono">
                {dry.plannedAt.slice(0, 10).map((p) => (
                  <li key={p}>{formatInZone(p)}</li>
                ))}
                {dry.plannedAt.length > 10 && <li className="muted">… and {dry.plannedAt.length - 10} more</li>}
              </ul>
            )}
            <DryRunTimeline scheduleId={schedule.id} plannedAt={dry.plannedAt} />
          </div>
        )}
        {generalError && (
          <p className="error" role="alert">
            ✕ {generalError}
          </p>
        )}
      </ModalDialog>

      <ModalDialog
        open={open === "backfill"}
        title={`Backfill ${schedule.name}`}
        onClose={close}
        onSubmit={() => void (dry ? backfill() : backfillPreview())}
        testId="backfill-dialog"
        actions={
          dry ? (
            <button type="submit" className="primary" disabled={busy || dry.count === 0} data-testid="confirm-backfill">
              Enqueue {dry.count} run(s)
            </button>
          ) : (
            <button type="submit" disabled={busy} data-testid="preview-backfill">
              Preview
            </button>
          )
        }
      >
        <p className="muted">
          Runs the fires of the trigger in a past range that have no run yet, each with its own backfill idempotency key.
        </p>
        <div className="grid-2">
          <FormField label="From (your local time)" error={fieldError("from")}>
            <input
              type="datetime-local"
              step={1}
              value={from}
              onChange={(e) => {
                setFrom(e.target.value);
                setDry(null);
              }}
            />
          </FormField>
          <FormField label="To (your local time)" error={fieldError("to")}>
            <input
              type="datetime-local"
              step={1}
              value={to}
              onChange={(e) => {
                setTo(e.target.value);
                setDry(null);
              }}
            />
          </FormField>
        </div>
        <FormField label="Reason (optional)" error={fieldError("reason")}>
          <input value={reason} onChange={(e) => setReason(e.target.value)} autoComplete="off" />
        </FormField>
        {dry && (
          <p data-testid="backfill-preview">
            <strong>{dry.count}</strong> run(s) will be enqueued ({dry.fires ?? "?"} fire(s) in the range, {dry.alreadyCovered ?? 0} already
            ran or are pending).
          </p>
        )}
        {dry?.plannedAt && (
          <DryRunTimeline scheduleId={schedule.id} plannedAt={dry.plannedAt} range={{ from: localToIso(from), to: localToIso(to) }} />
        )}
        {generalError && (
          <p className="error" role="alert">
            ✕ {generalError}
          </p>
        )}
      </ModalDialog>

      <ModalDialog
        open={open === "delete"}
        title={`Delete ${schedule.name}?`}
        onClose={close}
        onSubmit={() => void remove()}
        testId="delete-dialog"
        actions={
          <button type="submit" className="danger" disabled={busy} data-testid="confirm-delete">
            Delete schedule
          </button>
        }
      >
        <p>
          It will never be planned again and its not-started runs end cancelled. Runs already running finish normally. Its runs and audit
          trail are kept.
        </p>
        {generalError && (
          <p className="error" role="alert">
            ✕ {generalError}
          </p>
        )}
      </ModalDialog>
    </>
  );
}
