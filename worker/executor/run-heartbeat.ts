// Heartbeats for this worker's running attempts (runs.heartbeat_at and attempts.heartbeat_at on the
// database clock), on a connection of their own so a busy pool never makes a live run look dead.
// Self-fencing: an attempt whose heartbeats have not reached the database for half the zombie
// threshold is killed here, before any reaper may declare it a zombie and start a retry elsewhere.
import pg from "pg";
import type { Logger } from "../../core/log";
import { heartbeatRuns } from "../../core/runs/reap/heartbeat-runs";
import type { WorkerService } from "../service";
import type { Executor } from "./executor";

const FENCE_CHECK_MS = 200;

export function createRunHeartbeat(opts: {
  connectionString: string;
  workerId: string;
  executor: Executor;
  intervalMs: number;
  zombieAfterMs: number;
  log: Logger;
}): WorkerService {
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: 1,
    application_name: "vigil-run-heartbeat",
    query_timeout: Math.max(1000, opts.intervalMs),
    connectionTimeoutMillis: Math.max(1000, opts.intervalMs),
  });
  pool.on("error", (err) => opts.log.warn({ err }, "heartbeat connection error"));
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let fenceTimer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const beat = async (): Promise<void> => {
    const targets = opts.executor.heartbeatTargets(opts.intervalMs / 2);
    let next = opts.intervalMs;
    if (targets.length > 0) {
      const sent = performance.now();
      try {
        opts.executor.onHeartbeat(await heartbeatRuns(pool, opts.workerId, targets), sent);
      } catch (err) {
        opts.log.warn({ err, runs: targets.length }, "run heartbeat failed; retrying soon");
        next = Math.min(500, opts.intervalMs);
      }
    }
    if (!stopped) timer = setTimeout(() => (running = beat()), next);
  };

  return {
    name: "run-heartbeat",
    async start() {
      running = beat();
      fenceTimer = setInterval(() => {
        const killed = opts.executor.fenceStale(performance.now() - opts.zombieAfterMs / 2);
        if (killed > 0)
          opts.log.error(
            { killed, afterMs: opts.zombieAfterMs / 2 },
            "self-fenced: heartbeats are not reaching the database; stopped running handlers",
          );
      }, FENCE_CHECK_MS);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      clearInterval(fenceTimer);
      await running;
      await pool.end().catch(() => undefined);
    },
  };
}
