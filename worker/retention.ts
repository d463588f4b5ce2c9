// The retention duty runs in every worker, every VIGIL_RETENTION_EVERY_SECONDS; the advisory lock in
// core/retention/run-retention.ts lets one worker at a time do a pass (the others skip it). The first pass runs
// right at start, so partitions ahead exist and a window missed while no worker ran is caught up at once.
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import type { Env } from "../core/env";
import type { Logger } from "../core/log";
import { runRetention } from "../core/retention/run-retention";
import { retentionSettingsFromEnv } from "../core/retention/retention-settings";
import { every, type WorkerService } from "./service";

export function createRetentionDuty(opts: { pool: pg.Pool; boss: PgBoss; env: Env; log: Logger; workerId: string }): WorkerService {
  const log = opts.log.child({ service: "retention" });
  const settings = retentionSettingsFromEnv(opts.env);
  const loop = every(
    settings.everySeconds * 1000,
    async () => {
      const r = await runRetention(opts.pool, settings, { workerId: opts.workerId, boss: opts.boss });
      if (!r) return;
      const dropped = r.partitionsDropped.map((p) => p.partition);
      if (r.runs > 0 || dropped.length > 0 || r.partitionsCreated.length > 0) {
        log.info(
          {
            runs: r.runs,
            partitionsDropped: dropped,
            partitionsCreated: r.partitionsCreated,
            ...r.sideTables,
            durationMs: r.durationMs,
            // Of durationMs: the pauses between the runs step's batches, and of those the waits for gaps between firings.
            pausedMs: r.pausedMs,
            yieldedMs: r.yieldedMs,
          },
          "retention pass",
        );
      }
    },
    (err) => log.warn({ err }, "retention pass failed (the next pass resumes)"),
  );
  return {
    name: "retention",
    async start() {
      loop.start();
    },
    stop: () => loop.stop(),
  };
}
