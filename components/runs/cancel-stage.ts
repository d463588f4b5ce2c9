// Where a cancel stands: in words, from the run row (and its latest event when the API includes it), and as the
// run page's checklist of stages.
import { runsInProcessGroup } from "@/core/handlers/process-group-handlers";
import { isTerminal } from "@/core/runs/run-states";
import type { RunTraceView } from "./runs-queries";

const STAGE_WORDS: Record<string, string> = {
  cancel_requested: "cancel requested — telling its worker",
  cancel_acknowledged: "worker acknowledged — aborting",
  abort_sent: "abort signal sent — waiting for the handler",
  sigterm_sent: "SIGTERM sent to the process group — waiting for it to exit",
  sigkill_sent: "SIGKILL sent to the process group",
  terminated: "handler terminated",
  killed: "handler killed after grace",
  sessions_terminated: "database sessions terminated",
};

export function cancelStage(run: { state: string; cancelRequestedAt: string | null; lastEventType?: string | null }): string | null {
  if (!run.cancelRequestedAt || isTerminal(run.state)) return null;
  return (run.lastEventType && STAGE_WORDS[run.lastEventType]) || STAGE_WORDS.cancel_requested!;
}

const STAGES: { type: string; label: string; optional?: boolean; processGroup?: boolean }[] = [
  { type: "cancel_requested", label: "Requested" },
  { type: "cancel_acknowledged", label: "Worker acknowledged", optional: true },
  { type: "abort_sent", label: "Abort signal sent", optional: true },
  { type: "sigterm_sent", label: "SIGTERM sent to the process group", optional: true, processGroup: true },
  { type: "sigkill_sent", label: "SIGKILL sent to the process group", optional: true, processGroup: true },
  { type: "terminated", label: "Handler terminated", optional: true },
  { type: "killed", label: "Handler killed after grace", optional: true },
  { type: "sessions_terminated", label: "Database sessions terminated", optional: true },
  { type: "cancelled", label: "Run ended cancelled" },
];

type TraceEvent = RunTraceView["events"][number];
export interface CancelChecklist {
  ended: boolean;
  stages: { type: string; label: string; event: TraceEvent | undefined }[];
}

/**
 * The stages that happened, in the order they happened (the kill and the session cleanup can race), then the ones
 * still pending. A stage that cannot happen is not listed: the process-group signals for a handler that runs in a
 * thread, and once the run has ended, every optional stage the cancel skipped (a queued run has no handler to kill).
 */
export function cancelChecklist(trace: Pick<RunTraceView, "run" | "events">): CancelChecklist {
  const { run, events } = trace;
  const ended = run.state === "cancelled" || !["running", "queued", "planned", "retrying", "zombie"].includes(run.state);
  const groupSignals = runsInProcessGroup(run.handler);
  const firstOf = (t: string) => events.find((e) => e.type === t);
  const rows = STAGES.map((s) => ({
    type: s.type,
    label: s.label,
    optional: s.optional,
    processGroup: s.processGroup,
    event: firstOf(s.type),
  }))
    .filter((s) => s.event || ((!s.optional || !ended) && (!s.processGroup || groupSignals)))
    .map(({ type, label, event }) => ({ type, label, event }));
  const done = rows.filter((r) => r.event).sort((a, b) => a.event!.at.localeCompare(b.event!.at) || a.event!.id - b.event!.id);
  return { ended, stages: [...done, ...rows.filter((r) => !r.event)] };
}
