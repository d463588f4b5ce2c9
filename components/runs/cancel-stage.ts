// Where a cancel stands, in words, from the run row (and its latest event when the API includes it).
import { isTerminal } from "@/core/runs/run-states";

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
