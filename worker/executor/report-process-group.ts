// Called by a handler inside an attempt thread that runs a child process in its own process group, so
// the executor's main thread can signal the whole group even while it terminates the thread (a thread's
// children outlive worker.terminate()). Outside a thread (a unit test calling run() directly) it does nothing.
import { parentPort } from "node:worker_threads";
import type { FromThread } from "./thread-protocol.ts";

export function reportProcessGroup(pgid: number, event: "started" | "leftovers_killed" | "exited"): void {
  const m: FromThread = { type: "process_group", pgid, event };
  parentPort?.postMessage(m);
}
