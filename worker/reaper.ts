// The reaper runs in every worker: zombie runs (stale heartbeats) are put down and retried or
// ended; runs stuck without a live job are re-sent. Safe concurrently (SKIP LOCKED + re-checks).
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import type { Logger } from "../core/log";
import { reapZombieRuns } from "../core/runs/reap/reap-zombie-runs";
import { rekickStalledRuns } from "../core/runs/reap/reap-stalled-runs";
import { every, type WorkerService } from "./service";

export function createReaper(opts: {
  pool: pg.Pool;
  boss: PgBoss;
  workerId: string;
  zombieAfterMs: number;
  intervalMs?: number;
  log: Logger;
}): WorkerService {
  const log = opts.log.child({ service: "reaper" });
  const loop = every(
    opts.intervalMs ?? 1000,
    async () => {
      const reaped = await reapZombieRuns(opts.pool, opts.boss, { zombieAfterMs: opts.zombieAfterMs, reaperWorkerId: opts.workerId });
      for (const r of reaped) {
        log.warn(
          { runId: r.runId, scheduleId: r.scheduleId, attempt: r.attempt, ownerWorkerId: r.ownerWorkerId, state: r.state, why: r.why },
          "zombie run reaped",
        );
      }
      const kicked = await rekickStalledRuns(opts.pool, opts.boss, { overdueMs: 3000, unclaimedMs: 10_000 });
      if (kicked.length > 0) log.warn({ runIds: kicked }, "re-sent runs that had no live job");
    },
    (err) => log.warn({ err }, "reaper pass failed"),
  );
  return {
    name: "reaper",
    async start() {
      loop.start();
    },
    stop: () => loop.stop(),
  };
}
