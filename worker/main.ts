// The Vigil worker process: registers itself, starts pg-boss, then runs its services until a
// signal asks it to drain. Any number of workers may run against one database.
import "./require-node-version";
import "./clock-skew";
import fs from "node:fs";
import type pg from "pg";
import { getEnv, requireDatabaseUrl, type Env } from "../core/env";
import { getLogger, type Logger } from "../core/log";
import { reencryptSecrets } from "../core/secrets/reencrypt-secrets";
import { closePool, getPool } from "../core/db/pool";
import { ensureRunQueues, startBoss } from "../core/queue/boss";
import { describeHandler } from "../core/handlers/advertised-handler";
import { advertiseHandlers } from "../core/handlers/advertise-handlers";
import { HandlerLoadError, loadHandlers, type LoadedHandler } from "./handlers/load-handlers";
import { runQueueKey } from "../core/queue/worker-pool";
import { parseWorkerOptions, servesHandler, WorkerOptionsError, WORKER_USAGE } from "./worker-options";
import { printUsageIfAsked } from "../core/cli/print-usage";
import { resolveJobIdentity, type JobIdentity } from "./handlers/shell/job-identity";
import { WORKER_CONFIG_EXIT_CODE } from "./exit-codes";
import { markWorkerState, newWorkerIdentity, registerWorker } from "../core/workers/register-worker";
import { createFleetFold } from "./fleet-fold";
import { createHeartbeat } from "./heartbeat";
import { createAlerter } from "./alerter";
import { createAuditAnchorPublisher } from "./audit-anchor-publisher";
import { createPlanner } from "./planner";
import { createRetentionDuty } from "./retention";
import { createExecutionServices } from "./create-execution-services";
import type { WorkerService } from "./service";
import { resolveWorkerDatabase } from "./resolve-worker-database";
import { superuserWarning } from "../core/db/superuser-warning";
import pkg from "../package.json" with { type: "json" };

async function main(): Promise<void> {
  printUsageIfAsked(WORKER_USAGE);
  process.env.VIGIL_PROCESS ??= "worker";
  const watchParent = Boolean(process.channel);
  await resolveWorkerDatabase();
  const env = getEnv();
  const options = parseWorkerOptions(process.argv.slice(2), env);
  const jobIdentity = resolveJobIdentity(env.VIGIL_WORKER_PROGRAMS, env.VIGIL_JOB_USER);
  const served = await loadServedHandlers(options.handlerSources, options.serve, jobIdentity);
  const identity = newWorkerIdentity(pkg.version);
  const log = getLogger().child({ workerId: identity.id });
  const pool = getPool();
  const superuser = await superuserWarning(pool, "worker");
  if (superuser) log.warn(superuser);

  await registerWorker(pool, identity, env.VIGIL_WORKER_CONCURRENCY, options.pool);
  await advertiseHandlers(
    pool,
    identity.id,
    served.map((h) =>
      describeHandler(h.def, { source: h.source, builtin: h.builtin, code: h.builtin ? pkg.version : fs.readFileSync(h.source, "utf8") }),
    ),
  );
  await reencryptUnderCurrentKey(pool, env, log, identity.id);
  const handlers = served.map((h) => h.def.name);
  // Its handlers' queues in its pool (core/queue/worker-pool.ts): the only ones its dispatcher fetches from.
  const queueKeys = handlers.map((h) => runQueueKey(h, options.pool));
  const boss = await startBoss({ connectionString: requireDatabaseUrl(), log });
  await ensureRunQueues(boss, queueKeys);

  const execution = createExecutionServices({
    pool,
    boss,
    workerId: identity.id,
    connectionString: requireDatabaseUrl(),
    handlers: queueKeys,
    threadData: {
      handlerSources: options.handlerSources,
      cwd: process.cwd(),
      jobIdentity,
      memoryLimitMb: env.VIGIL_HANDLER_MEMORY_MB,
      outputLimitBytes: env.VIGIL_HANDLER_OUTPUT_KB * 1024,
    },
    env,
    log,
    onFatal: (err) => {
      log.fatal({ err }, `worker stopping: ${err.message}`);
      void drain("fatal", 1);
    },
  });
  const planner = createPlanner({ pool, boss, connectionString: requireDatabaseUrl(), horizonSeconds: env.VIGIL_PLAN_AHEAD_SECONDS, log });
  const services: WorkerService[] = [
    createHeartbeat({
      db: pool,
      workerId: identity.id,
      intervalMs: env.VIGIL_HEARTBEAT_MS,
      log,
      stats: () => ({ running: execution.executor.runningCount(), plannerLagMs: planner.lagMs() }),
    }),
    // Alerts: evaluates every rule (one evaluator at a time across workers) and delivers webhooks.
    createAlerter({ pool, env, log, version: pkg.version }),
    // The fleet read models' appended deltas folded into their minute rows (one worker at a time).
    createFleetFold({ db: pool, log }),
    // Retention: partitions ahead, summaries, expiry (one worker at a time across workers).
    createRetentionDuty({ pool, boss, env, log, workerId: identity.id }),
    // Publishes the audit chain head outside the database (log, file, webhook) when it moved.
    createAuditAnchorPublisher({ pool, env, log, workerId: identity.id, version: pkg.version }),
    // Settles misfires from downtime before this worker's dispatcher takes jobs (worker/planner.ts).
    planner.settle,
    // Execution: stopped right after the planner on drain (the dispatcher drains the executor within the deadline).
    ...execution.services,
    // The planner's ticks start once this worker can run what they enqueue, and stop first on drain.
    planner,
  ];
  // Signals are handled from here on, even while services are still starting: a SIGTERM during
  // start-up drains what has started instead of killing the process mid-way.
  const started: WorkerService[] = [];
  let stopping = false;
  const drain = async (signal: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    const deadline = performance.now() + env.VIGIL_DRAIN_TIMEOUT_MS;
    log.info({ signal, drainTimeoutMs: env.VIGIL_DRAIN_TIMEOUT_MS }, "draining");
    await markWorkerState(pool, identity.id, "draining").catch((err) => log.warn({ err }, "could not mark draining"));
    // Stop in reverse start order so work-taking services stop before the heartbeat does.
    for (const s of [...started].reverse()) {
      await s.stop(deadline).catch((err) => log.error({ err, service: s.name }, "service did not stop cleanly"));
    }
    await boss.stop({ graceful: false, close: true, timeout: 2000 }).catch((err) => log.warn({ err }, "pg-boss stop failed"));
    await markWorkerState(pool, identity.id, "stopped").catch((err) => log.warn({ err }, "could not mark stopped"));
    await closePool();
    log.info("worker stopped");
    process.exit(exitCode);
  };
  process.on("SIGTERM", () => void drain("SIGTERM"));
  process.on("SIGINT", () => void drain("SIGINT"));
  // A worker started by a parent (npm start's launcher, a test, a bench) gets an IPC channel to it
  // (scripts/lib/processes.ts, test/worker-process.ts): the channel closes when the parent dies, even by SIGKILL,
  // and the worker drains instead of running on orphaned. A worker started by hand has no channel.
  if (watchParent) {
    if (process.connected) process.once("disconnect", () => void drain("parent exited"));
    else void drain("parent exited");
  }

  for (const s of services) {
    if (stopping) return;
    await s.start();
    started.push(s);
  }
  const custom = served.filter((h) => !h.builtin).map((h) => h.def.name);
  log.info(
    { host: identity.host, pid: identity.pid, version: identity.version, handlers: handlers.length, custom, pool: options.pool },
    "worker started",
  );
  if (jobIdentity.mode === "refused") log.warn({ reason: jobIdentity.reason }, "program handlers (shell.command…) are not served");
  else if (jobIdentity.mode === "same-user")
    log.warn("program jobs run as this worker's own user (VIGIL_WORKER_PROGRAMS=same-user): they can read its environment and files");
  else log.info({ jobUser: jobIdentity.user, uid: jobIdentity.uid }, "program jobs run as a separate user");
}

/** A key rotation in progress (VIGIL_SECRET_KEY_PREVIOUS set): values under a previous key move to the current one. */
async function reencryptUnderCurrentKey(pool: pg.Pool, env: Env, log: Logger, workerId: string): Promise<void> {
  if (!env.VIGIL_SECRET_KEY || env.VIGIL_SECRET_KEY_PREVIOUS.length === 0) return;
  try {
    const r = await reencryptSecrets(pool, env.VIGIL_SECRET_KEY, env.VIGIL_SECRET_KEY_PREVIOUS, `worker ${workerId}`);
    if (r.reencrypted.length > 0) log.info({ secrets: r.reencrypted }, "secrets re-encrypted under the current key");
    if (r.unreadable.length > 0)
      log.warn(
        { secrets: r.unreadable },
        "secrets under a key this worker does not have: set them again or add their key to VIGIL_SECRET_KEY_PREVIOUS",
      );
  } catch (err) {
    log.error({ err }, "could not re-encrypt secrets under the current key (they stay readable with the previous keys)");
  }
}

/**
 * Built-ins and the operator's modules, narrowed to --serve, without the program handlers when this worker refuses
 * them (neither advertised nor subscribed: the console shows that no worker serves them). A problem ends the start
 * with one line.
 */
async function loadServedHandlers(sources: string[], serve: string[], jobs: JobIdentity): Promise<LoadedHandler[]> {
  const loaded = await loadHandlers({ sources });
  const served = loaded.filter((h) => servesHandler(serve, h.def.name) && !(jobs.mode === "refused" && h.def.runsPrograms === true));
  if (served.length === 0) {
    throw new HandlerLoadError(
      `--serve ${serve.join(",")} matches none of the loaded handlers (${loaded.map((h) => h.def.name).join(", ")})`,
    );
  }
  return served;
}

main().catch((err) => {
  // A handler folder with a problem is the operator's to fix: one line naming the file and what is wrong.
  if (err instanceof HandlerLoadError || err instanceof WorkerOptionsError) {
    process.stderr.write(`vigil worker: cannot start: ${err.message}\n`);
    process.exit(WORKER_CONFIG_EXIT_CODE);
  }
  getLogger().fatal({ err }, "worker failed to start");
  process.exit(1);
});
