// Folds the fleet read models' deltas every couple of seconds (core/metrics/fold-fleet-deltas.ts): the runs
// triggers append, so no claim or finish waits on a shared minute row; this keeps what readers sum short.
import type { Queryable } from "../core/db/pool";
import type { Logger } from "../core/log";
import { foldFleetDeltas } from "../core/metrics/fold-fleet-deltas";
import { every, type WorkerService } from "./service";

export const FLEET_FOLD_INTERVAL_MS = 2000;

export function createFleetFold(opts: { db: Queryable; log: Logger; intervalMs?: number }): WorkerService {
  const loop = every(
    opts.intervalMs ?? FLEET_FOLD_INTERVAL_MS,
    async () => {
      await foldFleetDeltas(opts.db);
    },
    (err) => opts.log.warn({ err }, "folding the fleet read models' deltas failed"),
  );
  return {
    name: "fleet-fold",
    async start() {
      loop.start();
    },
    stop: () => loop.stop(),
  };
}
