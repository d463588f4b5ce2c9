import { formatPrecise } from "../ui/time-format";
import type { RunTraceView } from "./runs-queries";

const STAGES: { type: string; label: string; optional?: boolean }[] = [
  { type: "cancel_requested", label: "Requested" },
  { type: "cancel_acknowledged", label: "Worker acknowledged", optional: true },
  { type: "abort_sent", label: "Abort signal sent", optional: true },
  { type: "sigterm_sent", label: "SIGTERM sent to the process group", optional: true },
  { type: "sigkill_sent", label: "SIGKILL sent to the process group", optional: true },
  { type: "terminated", label: "Handler terminated", optional: true },
  { type: "killed", label: "Handler killed after grace", optional: true },
  { type: "sessions_terminated", label: "Database sessions terminated", optional: true },
  { type: "cancelled", label: "Run ended cancelled" },
];

/**
 * The cancel path as a checklist of the stages that happened (with database times) and the ones still
 * pending; stages a cancel skipped (a queued run has no handler to kill) are left out once it has ended.
 */
export function CancelStages({ trace }: { trace: RunTraceView }) {
  const { run, events } = trace;
  if (!run.cancelRequestedAt) return null;
  const ended = run.state === "cancelled" || !["running", "queued", "planned", "retrying", "zombie"].includes(run.state);
  const firstOf = (t: string) => events.find((e) => e.type === t);
  const rows = STAGES.map((s) => ({ ...s, event: firstOf(s.type) })).filter((s) => s.event || !s.optional || !ended);
  // Stages that happened, in the order they happened (the kill and the session cleanup can race); then the rest.
  const done = rows.filter((r) => r.event).sort((a, b) => a.event!.at.localeCompare(b.event!.at) || a.event!.id - b.event!.id);
  const pending = rows.filter((r) => !r.event);
  const ordered = [...done, ...pending];
  return (
    <section className="card" aria-labelledby="cancel-title" data-testid="cancel-stages">
      <h2 id="cancel-title" style={{ marginTop: 0 }}>
        Cancel {ended ? (run.state === "cancelled" ? "— done" : `— run ended ${run.state}`) : "— in progress"}
      </h2>
      <p className="muted">
        Requested by {run.cancelRequestedBy ?? "unknown"}
        {run.cancelReason ? <>: “{run.cancelReason}”</> : null}
      </p>
      <ol className="stages">
        {ordered.map((s) => (
          <li
            key={s.type}
            className={s.event ? "done" : "pending"}
            data-testid="cancel-stage-item"
            data-stage={s.type}
            data-done={Boolean(s.event)}
          >
            <span aria-hidden="true">{s.event ? "✓" : "…"}</span> {s.label}
            {s.event ? <span className="mono muted"> {formatPrecise(s.event.at)}</span> : <span className="muted"> (waiting)</span>}
            {s.event?.message ? <span className="muted"> — {s.event.message}</span> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
