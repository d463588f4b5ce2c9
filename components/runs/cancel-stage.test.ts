import { describe, expect, it } from "vitest";
import { cancelChecklist } from "./cancel-stage";
import type { RunTraceView } from "./runs-queries";

type Trace = Pick<RunTraceView, "run" | "events">;
let nextId = 1;
const event = (type: string, at: string) => ({ id: nextId++, type, at }) as unknown as RunTraceView["events"][number];
const trace = (handler: string, state: string, events: RunTraceView["events"]): Trace =>
  ({ run: { handler, state, cancelRequestedAt: "2026-01-01T00:00:00.000Z" }, events }) as unknown as Trace;

const types = (t: Trace) => cancelChecklist(t).stages.map((s) => s.type);

describe("the cancel checklist", () => {
  const requested = [event("cancel_requested", "2026-01-01T00:00:00.000Z"), event("cancel_acknowledged", "2026-01-01T00:00:00.100Z")];

  it("a handler that runs in a thread is not promised process-group signals while the cancel is under way", () => {
    expect(types(trace("demo.sleep", "running", requested))).toEqual([
      "cancel_requested",
      "cancel_acknowledged",
      "abort_sent",
      "terminated",
      "killed",
      "sessions_terminated",
      "cancelled",
    ]);
  });

  it("a shell.command run lists SIGTERM and SIGKILL to its process group", () => {
    expect(types(trace("shell.command", "running", requested))).toEqual([
      "cancel_requested",
      "cancel_acknowledged",
      "abort_sent",
      "sigterm_sent",
      "sigkill_sent",
      "terminated",
      "killed",
      "sessions_terminated",
      "cancelled",
    ]);
  });

  it("once ended, only what happened is listed, in the order it happened", () => {
    const events = [
      ...requested,
      event("abort_sent", "2026-01-01T00:00:00.200Z"),
      event("sessions_terminated", "2026-01-01T00:00:00.400Z"),
      event("killed", "2026-01-01T00:00:00.300Z"),
      event("cancelled", "2026-01-01T00:00:00.500Z"),
    ];
    const list = cancelChecklist(trace("demo.sleep", "cancelled", events));
    expect(list.ended).toBe(true);
    expect(list.stages.map((s) => s.type)).toEqual([
      "cancel_requested",
      "cancel_acknowledged",
      "abort_sent",
      "killed",
      "sessions_terminated",
      "cancelled",
    ]);
  });
});
