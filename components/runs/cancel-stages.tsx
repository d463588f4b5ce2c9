import { formatPrecise } from "../ui/time-format";
import { cancelChecklist } from "./cancel-stage";
import type { RunTraceView } from "./runs-queries";

/** The cancel path as a checklist (cancel-stage.ts): the stages that happened, with database times, then the rest. */
export function CancelStages({ trace }: { trace: RunTraceView }) {
  const { run } = trace;
  if (!run.cancelRequestedAt) return null;
  const { ended, stages: ordered } = cancelChecklist(trace);
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
