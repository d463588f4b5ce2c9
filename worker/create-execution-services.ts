// Wires the execution side of a worker: executor (warm isolated threads), dispatcher, run
// heartbeats with self-fencing, reaper and cancel listener. worker/main.ts appends these services;
// they stop in reverse order, so the dispatcher (which drains the executor) stops first and the
// run heartbeat keeps running until every attempt has ended.
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import { createFetchPool, createHotPathPool } from "../core/db/pool";
import type { Env } from "../core/env";
import type { Logger } from "../core/log";
import type { WorkerService } from "./service";
import { createCancelListener } from "./cancel-listener";
import { createDispatcher } from "./dispatcher";
import { createReaper } from "./reaper";
import { createOrphanProcessSweeper } from "./orphan-process-sweeper";
import { Executor } from "./executor/executor";
import { createRunHeartbeat } from "./executor/run-heartbeat";
import type { ThreadData } from "./executor/thread-protocol";

export function createExecutionServices(opts: {
  pool: pg.Pool;
  boss: PgBoss;
  workerId: string;
  connectionString: string;
  /** The queue keys of the handlers this worker serves, in its pool (core/queue/worker-pool.ts runQueueKey): its
   * dispatcher fetches only their queues. */
  handlers: readonly string[];
  threadData: ThreadData;
  env: Env;
  log: Logger;
  /** The executor can no longer start threads: the worker must stop. */
  onFatal?: (err: Error) => void;
}): { executor: Executor; services: WorkerService[] } {
  const { env } = opts;
  let poke = () => {};
  const hotPool = createHotPathPool(opts.connectionString, 4);
  const fetchPool = createFetchPool(opts.connectionString, 2);
  const executor = new Executor({
    pool: opts.pool,
    hotPool,
    boss: opts.boss,
    workerId: opts.workerId,
    concurrency: env.VIGIL_WORKER_CONCURRENCY,
    databaseUrl: opts.connectionString,
    threadData: opts.threadData,
    log: opts.log,
    // Several slots freeing in one tick cause one fetch.
    onSlotFree: () => setImmediate(() => poke()),
    onFatal: opts.onFatal,
  });
  const dispatcher = createDispatcher({
    pool: opts.pool,
    hotPool,
    fetchPool,
    boss: opts.boss,
    executor,
    workerId: opts.workerId,
    connectionString: opts.connectionString,
    handlers: opts.handlers,
    log: opts.log,
  });
  poke = dispatcher.poke;
  const executorService: WorkerService = {
    name: "executor-threads",
    start: () => executor.start(),
    // The dispatcher's stop drains the executor; its outcomes are written by then.
    stop: () => Promise.all([hotPool.end(), fetchPool.end()]).then(() => undefined),
  };
  return {
    executor,
    services: [
      createRunHeartbeat({
        connectionString: opts.connectionString,
        workerId: opts.workerId,
        executor,
        intervalMs: env.VIGIL_HEARTBEAT_MS,
        zombieAfterMs: env.VIGIL_ZOMBIE_AFTER_MS,
        log: opts.log,
      }),
      createReaper({ pool: opts.pool, boss: opts.boss, workerId: opts.workerId, zombieAfterMs: env.VIGIL_ZOMBIE_AFTER_MS, log: opts.log }),
      createOrphanProcessSweeper({ pool: opts.pool, workerId: opts.workerId, log: opts.log }),
      createCancelListener({ connectionString: opts.connectionString, executor, log: opts.log }),
      executorService,
      dispatcher,
    ],
  };
}
