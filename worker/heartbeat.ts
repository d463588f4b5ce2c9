// Keeps this worker's row fresh; other workers and the console judge liveness by it.
import { heartbeatWorker } from "../core/workers/register-worker";
import type { Queryable } from "../core/db/pool";
import type { Logger } from "../core/log";
import { every, type WorkerService } from "./service";

export function createHeartbeat(opts: {
  db: Queryable;
  workerId: string;
  intervalMs: number;
  log: Logger;
  stats: () => { plannerLagMs?: number; running?: number };
}): WorkerService {
  const loop = every(
    opts.intervalMs,
    () => heartbeatWorker(opts.db, opts.workerId, opts.stats()),
    (err) => opts.log.warn({ err }, "worker heartbeat failed"),
  );
  return {
    name: "heartbeat",
    async start() {
      loop.start();
    },
    stop: () => loop.stop(),
  };
}
