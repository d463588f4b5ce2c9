// The pg-boss client. Vigil uses pg-boss as its durable queue (job per attempt, expiration as a
// hard backstop) but plans, times and guards runs itself; see worker/ for why.
import { PgBoss } from "pg-boss";
import type { Logger } from "../log";

export const RUN_QUEUE = "vigil-run";

export async function startBoss(opts: { connectionString: string; log: Logger; max?: number; supervise?: boolean }): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: opts.connectionString,
    application_name: "vigil-boss",
    max: opts.max ?? 4,
    // Vigil plans occurrences itself on the database clock; pg-boss's minute-grained cron is not used.
    schedule: false,
    supervise: opts.supervise ?? true,
    migrate: true,
  });
  // Attached before start(): an unhandled 'error' event would crash the worker.
  boss.on("error", (err: Error) => opts.log.error({ err }, "pg-boss error"));
  await boss.start();
  if (!(await boss.getQueue(RUN_QUEUE))) {
    await boss.createQueue(RUN_QUEUE, { policy: "standard", retryLimit: 0, deleteAfterSeconds: 7 * 24 * 3600 }).catch(async (err) => {
      // Another worker created it first.
      if (!(await boss.getQueue(RUN_QUEUE))) throw err;
    });
  }
  return boss;
}
