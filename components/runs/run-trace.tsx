"use client";
import Link from "next/link";
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { CANCELLABLE_STATES, RERUNNABLE_STATES } from "@/core/runs/run-states";
import { noWorkerWaitingHint, noWorkerWaitingText, waitingHint, waitingText } from "@/core/runs/waiting-text";
import { RunStatePill } from "../ui/run-state-pill";
import { formatDuration, formatInZone, formatPrecise, formatRelative } from "../ui/time-format";
import { useNow } from "../ui/use-now";
import { useCan } from "../ui/use-can";
import { CancelRunDialog } from "./cancel-run-dialog";
import { CancelStages } from "./cancel-stages";
import { RerunDialog } from "./rerun-dialog";
import { RunChain } from "./run-chain";
import { TriggerDialog, TriggeredNotice } from "../schedules/trigger-dialog";
import { runTraceQuery, type RunTraceView } from "./runs-queries";
import { HandlerName } from "../schedules/handler-availability";

const EVENT_ICON: Record<string, string> = {
  planned: "◇",
  enqueued: "◌",
  deduplicated: "≡",
  duplicate_delivery_suppressed: "≡",
  waiting: "◌",
  started: "▶",
  heartbeat_gap: "♡",
  retry_scheduled: "↻",
  timed_out: "◔",
  abort_sent: "⚑",
  sigterm_sent: "⚐",
  sigkill_sent: "☒",
  terminated: "■",
  cancel_requested: "⊘",
  cancel_acknowledged: "⊘",
  killed: "☒",
  sessions_terminated: "⛁",
  cancelled: "⊘",
  zombie_detected: "☠",
  skipped_overlap: "↷",
  missed: "⚠",
  paused: "‖",
  excluded: "⊝",
  replanned: "↺",
  finished: "✓",
  rerun_requested: "⟳",
};

function Json({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span className="muted">—</span>;
  return <pre className="json">{JSON.stringify(value, null, 2)}</pre>;
}

function Timing({ label, at, extra }: { label: string; at: string | null; extra?: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>
        {at ? <span className="mono">{formatInZone(at, undefined, { ms: true })}</span> : <span className="muted">—</span>}
        {extra && <span className="muted"> {extra}</span>}
      </dd>
    </>
  );
}

function Timings({ run, now }: { run: RunTraceView["run"]; now: number }) {
  const t = run.timings;
  const jitter = Date.parse(t.dueAt) - Date.parse(t.plannedAt);
  const late = t.lateness === "late";
  return (
    <dl className="kv" data-testid="run-timings">
      <Timing label="Planned" at={t.plannedAt} />
      <Timing label="Due" at={t.dueAt} extra={jitter > 0 ? `(+${formatDuration(jitter)} start jitter)` : undefined} />
      <Timing label="Enqueued" at={t.enqueuedAt} />
      <Timing label="Started" at={t.startedAt} />
      <Timing
        label="Finished"
        at={t.finishedAt}
        extra={!t.finishedAt && t.startedAt ? `still running (${formatDuration(now - Date.parse(t.startedAt))})` : undefined}
      />
      <dt>Lateness</dt>
      <dd>
        {t.latenessMs === null ? <span className="muted">not started</span> : formatDuration(t.latenessMs)}{" "}
        {t.latenessMs !== null && (late ? <span className="pill warn">◷ late</span> : <span className="pill ok">✓ on time</span>)}
      </dd>
      <dt>Duration</dt>
      <dd>{formatDuration(t.durationMs)}</dd>
      <dt>Planned → finished</dt>
      <dd>{formatDuration(t.completionGapMs)}</dd>
      {t.heartbeatAgeMs !== null && (
        <>
          <dt>Last heartbeat</dt>
          <dd>{formatDuration(t.heartbeatAgeMs)} ago</dd>
        </>
      )}
      <Timing label="Next attempt" at={run.nextAttemptAt} extra={run.nextAttemptAt ? formatRelative(run.nextAttemptAt, now) : undefined} />
    </dl>
  );
}

/** One run's single trace: timings, identity, the cancel path, every event, attempts, handler logs, payload and result. */
export function RunTrace({ runId }: { runId: string }) {
  const q = useQuery(runTraceQuery(runId));
  const now = useNow(1000);
  const [cancelOpen, setCancelOpen] = useState(false);
  const [rerunOpen, setRerunOpen] = useState(false);
  const [againOpen, setAgainOpen] = useState(false);
  const [againResult, setAgainResult] = useState<{ runId: string | null; replayed: boolean } | null>(null);
  const canOperate = useCan("operate", q.data?.run.teamId ?? "unknown");
  if (q.isLoading) return <p className="muted">Loading run…</p>;
  if (q.error)
    return (
      <p className="error">
        Could not load run {runId}: {q.error.message}
      </p>
    );
  const trace = q.data!;
  const { run, events, attempts, logs } = trace;
  const plannedMs = Date.parse(run.timings.plannedAt);
  const canCancel = canOperate && (CANCELLABLE_STATES as readonly string[]).includes(run.state) && !run.cancelRequestedAt;
  const canRerun = canOperate && (RERUNNABLE_STATES as readonly string[]).includes(run.state);

  return (
    <div data-testid="run-trace">
      <div className="row page-head">
        <h1>
          Run of <Link href={`/schedules/${run.scheduleId}`}>{run.scheduleName}</Link>
        </h1>
        <RunStatePill state={run.state} />
        {run.kind !== "scheduled" && <span className="pill muted">{run.kind}</span>}
        {run.reruns > 0 && (
          <span className="pill info" data-testid="rerun-count" title="Re-runs are left out of lateness alerts and the lateness p95">
            ⟳ re-run ×{run.reruns}
          </span>
        )}
        {run.waitReason === "upstream" && run.state === "planned" && (
          <span className="pill info" data-testid="run-waiting" title={waitingHint(run.waitReason, run.concurrencyGroup)}>
            ◌ {waitingText(run.waitReason, run.concurrencyGroup)}
          </span>
        )}
        {run.noLiveWorker && (
          <span className="pill bad" data-testid="run-waiting-worker" title={noWorkerWaitingHint(run.handler, run.workerPool)}>
            ◌ {noWorkerWaitingText(run.handler, run.workerPool)}
          </span>
        )}
        {run.waitReason && run.state === "queued" && (
          <span className="pill info" data-testid="run-waiting" title={waitingHint(run.waitReason, run.concurrencyGroup)}>
            ◌{" "}
            {run.waitReason === "rate_limit"
              ? waitingText(run.waitReason, run.concurrencyGroup)
              : `waiting for ${run.waitReason === "overlap" ? "the previous run" : "a concurrency slot"}`}
          </span>
        )}
        <span className="spacer" />
        <Link href={`/audit?target=run:${run.id}`}>Audit trail →</Link>
        {canCancel && (
          <button type="button" className="danger" onClick={() => setCancelOpen(true)} data-testid="cancel-run">
            Cancel run…
          </button>
        )}
        {canRerun && (
          <button type="button" className="primary" onClick={() => setRerunOpen(true)} data-testid="rerun-run">
            ⟳ Re-run…
          </button>
        )}
        {canOperate && run.state === "succeeded" && (
          <button type="button" onClick={() => setAgainOpen(true)} data-testid="run-again-new">
            ⚡ Run again as a new occurrence…
          </button>
        )}
      </div>
      <p className="muted small mono">run {run.id}</p>
      {againResult && (
        <div className="banner ok" role="status" data-testid="action-notice">
          ✓ <TriggeredNotice r={againResult} />
        </div>
      )}

      <CancelStages trace={trace} />
      <RunChain runId={run.id} />

      <div className="grid-2">
        <section className="card" aria-labelledby="timings-title">
          <h2 id="timings-title" style={{ marginTop: 0 }}>
            Timings <span className="muted small">(database clock, your zone)</span>
          </h2>
          <Timings run={run} now={now} />
        </section>
        <section className="card" aria-labelledby="identity-title">
          <h2 id="identity-title" style={{ marginTop: 0 }}>
            What ran
          </h2>
          <dl className="kv">
            <dt>Team</dt>
            <dd data-testid="run-team">{run.team}</dd>
            <dt>Handler</dt>
            <dd>
              <HandlerName name={run.handler} pool={run.workerPool ?? null} />
            </dd>
            <dt>Idempotency key</dt>
            <dd className="mono" data-testid="idempotency-key">
              {run.idempotencyKey}
            </dd>
            <dt>Worker</dt>
            <dd className="mono">{run.workerId ?? "—"}</dd>
            <dt>Attempt</dt>
            <dd>
              {run.attempt} of {run.maxAttempts}
            </dd>
            <dt>Timeout</dt>
            <dd>
              {run.timeoutSeconds} s, then killed after {run.graceSeconds} s grace
            </dd>
            <dt>Overlap policy</dt>
            <dd>{run.overlapPolicy}</dd>
            {run.concurrencyGroup && (
              <>
                <dt>Concurrency group</dt>
                <dd>{run.concurrencyGroup}</dd>
              </>
            )}
            <dt>Records</dt>
            <dd>
              {run.records ?? "—"}
              {run.expectRecordsMin !== null && <span className="muted"> (expected ≥ {run.expectRecordsMin})</span>}
            </dd>
          </dl>
        </section>
      </div>

      {/* A cancel is an operator's decision, not a failure: the run ended as asked. The checklist above tells who and
          why; the note says only what it does not (a cancel by deleting or re-planning the schedule, or more words). */}
      {run.state === "cancelled"
        ? (!run.cancelRequestedAt || (run.error && run.error !== "cancelled")) && (
            <section className="card" aria-labelledby="cancelled-title" data-testid="run-cancelled-note">
              <h2 id="cancelled-title" style={{ marginTop: 0 }}>
                ⊘ Cancelled
              </h2>
              <p className="muted">{run.error && run.error !== "cancelled" ? run.error : "The run was cancelled before it finished."}</p>
            </section>
          )
        : run.error && (
            <section className="card error-card" aria-labelledby="error-title">
              <h2 id="error-title" style={{ marginTop: 0 }}>
                ✕ Error
              </h2>
              <pre className="json">{run.error}</pre>
            </section>
          )}

      <section aria-labelledby="events-title">
        <h2 id="events-title">Events ({events.length})</h2>
        <table className="table compact" data-testid="run-events">
          <thead>
            <tr>
              <th>At (database)</th>
              <th>Since planned</th>
              <th>Event</th>
              <th>Attempt</th>
              <th>Worker</th>
              <th>Details</th>
            </tr>
          </thead>
          <tbody>
            {events.map((e) => (
              <tr key={e.id} data-testid="run-event" data-type={e.type}>
                <td className="mono" title={formatInZone(e.at)}>
                  {formatPrecise(e.at)}
                </td>
                <td className="mono muted">{formatDuration(Date.parse(e.at) - plannedMs)}</td>
                <td>
                  <span aria-hidden="true">{EVENT_ICON[e.type] ?? "•"}</span> {e.type.replaceAll("_", " ")}
                </td>
                <td>{e.attempt ?? "—"}</td>
                <td className="mono small">{e.workerId ?? "—"}</td>
                <td>
                  {e.message}
                  {e.data !== null && e.data !== undefined && (
                    <details>
                      <summary className="muted small">data</summary>
                      <Json value={e.data} />
                    </details>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section aria-labelledby="attempts-title">
        <h2 id="attempts-title">Attempts ({attempts.length})</h2>
        {attempts.length === 0 ? (
          <p className="muted">No attempt started.</p>
        ) : (
          <table className="table compact" data-testid="run-attempts">
            <thead>
              <tr>
                <th>#</th>
                <th>State</th>
                <th>Worker</th>
                <th>Started</th>
                <th>Finished</th>
                <th>Duration</th>
                <th>Records</th>
                <th>Error</th>
              </tr>
            </thead>
            <tbody>
              {attempts.map((a) => (
                <tr key={a.number}>
                  <td>{a.number}</td>
                  <td>
                    <RunStatePill state={a.state} />
                  </td>
                  <td className="mono small">{a.workerId ?? "—"}</td>
                  <td className="mono">{formatPrecise(a.startedAt)}</td>
                  <td className="mono">{formatPrecise(a.finishedAt)}</td>
                  <td>{formatDuration(a.durationMs)}</td>
                  <td>{a.records ?? "—"}</td>
                  <td className={a.state === "cancelled" ? "muted small" : "error small"}>{a.error ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section aria-labelledby="logs-title">
        <h2 id="logs-title">
          Handler logs ({logs.length}
          {trace.logsTruncated ? ", oldest omitted" : ""})
        </h2>
        {logs.length === 0 ? (
          <p className="muted">The handler wrote no log lines.</p>
        ) : (
          <div className="logs" data-testid="run-logs">
            {logs.map((l) => (
              <div key={l.id} className={`log-line level-${l.level}`}>
                <span className="mono muted">{formatPrecise(l.at)}</span> <span className="mono muted">#{l.attempt}</span>{" "}
                <span className={`mono level`}>{l.level.toUpperCase()}</span> {l.message}
                {l.fields !== null && l.fields !== undefined && <span className="mono muted"> {JSON.stringify(l.fields)}</span>}
              </div>
            ))}
          </div>
        )}
      </section>

      <div className="grid-2">
        <section aria-labelledby="payload-title">
          <h2 id="payload-title">Payload</h2>
          <Json value={run.payload} />
        </section>
        <section aria-labelledby="result-title">
          <h2 id="result-title">Result</h2>
          <Json value={run.result} />
        </section>
      </div>

      {rerunOpen && <RerunDialog runId={run.id} label={`this run of ${run.scheduleName}`} open onClose={() => setRerunOpen(false)} />}
      {againOpen && (
        <TriggerDialog
          schedule={{ id: run.scheduleId, name: run.scheduleName, handler: run.handler, payload: run.payload }}
          open
          alwaysSendPayload
          title={`Run ${run.scheduleName} again as a new occurrence?`}
          intro="This run succeeded, so it cannot be re-run. This starts a NEW occurrence with a new idempotency key: whatever the handler does — postings, requests — happens again. It starts with this run's payload unless you change it."
          onClose={() => setAgainOpen(false)}
          onTriggered={(r) => {
            setAgainOpen(false);
            setAgainResult(r);
          }}
        />
      )}
      {cancelOpen && (
        <CancelRunDialog
          runId={run.id}
          label={`this run of ${run.scheduleName}`}
          state={run.state}
          open
          onClose={() => setCancelOpen(false)}
        />
      )}
    </div>
  );
}
