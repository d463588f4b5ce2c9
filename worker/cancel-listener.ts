// Tells the executor at once when an operator (or the cancel_running policy) cancels a run this
// worker owns. A missed notification is caught by the run heartbeat, which reports cancel requests.
import type { Logger } from "../core/log";
import { CANCEL_CHANNEL } from "../core/runs/operate/cancel-run";
import type { Executor } from "./executor/executor";
import { createPgListener } from "./lib/pg-listener";
import type { WorkerService } from "./service";

export function createCancelListener(opts: { connectionString: string; executor: Executor; log: Logger }): WorkerService {
  const log = opts.log.child({ service: "cancel-listener" });
  const listener = createPgListener({
    connectionString: opts.connectionString,
    channels: [CANCEL_CHANNEL],
    name: "vigil-cancel-listener",
    log,
    onNotify: (_channel, runId) => {
      if (opts.executor.cancel(runId)) log.info({ runId }, "cancel received; aborting");
    },
  });
  return {
    name: "cancel-listener",
    start: () => listener.start(),
    stop: () => listener.stop(),
  };
}
