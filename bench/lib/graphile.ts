// graphile-worker 0.18 as a baseline (bench-only devDependency): worker processes started through its library API
// (`run` with a task list) that report when each task started, so a bench compares Vigil's starts with the fastest
// Postgres job queue's on the same database server. Start times are wall-clock epoch ms of this machine, the same
// clock the embedded PostgreSQL reads, so they compare with the database's timestamps within a millisecond.
import { spawn, type ChildProcess } from "node:child_process";
import readline from "node:readline";

export interface GraphileProcess {
  child: ChildProcess;
  /** Start times (epoch ms) of every task so far, in arrival order. */
  starts: number[];
  /** Resolves at the next task start at or after the call. */
  nextStart(): Promise<number>;
  stop(): Promise<void>;
}

/** Spawns one graphile-worker process (concurrency, poll interval) running the no-op task `noop`. */
export async function startGraphileProcess(
  benchFile: string,
  url: string,
  opts: { concurrency: number; pollMs: number; batched?: boolean },
): Promise<GraphileProcess> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      benchFile,
      "--raw-worker",
      `graphile|${opts.concurrency}|${opts.pollMs}|${opts.batched ? "batched" : "default"}|${url}`,
    ],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const starts: number[] = [];
  let waiters: ((ms: number) => void)[] = [];
  let ready!: () => void;
  const isReady = new Promise<void>((r) => (ready = r));
  readline.createInterface({ input: child.stdout! }).on("line", (line) => {
    if (line === "ready") return ready();
    const ms = Number(line);
    if (!Number.isFinite(ms)) return;
    starts.push(ms);
    const w = waiters;
    waiters = [];
    for (const f of w) f(ms);
  });
  await Promise.race([
    isReady,
    new Promise((_, rej) => child.once("exit", (code) => rej(new Error(`a graphile-worker process exited (${code}) before it was ready`)))),
  ]);
  return {
    child,
    starts,
    nextStart: () => new Promise((r) => waiters.push(r)),
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
    },
  };
}

/**
 * graphile-worker's batching options (its docs' "performance" page), for the stronger of the two baselines: a local
 * queue that fetches and locks several jobs per query and hands them to the process's workers without a round
 * trip, and completions batched over one tick (0 ms: every completion of the same tick in one statement).
 */
export const GRAPHILE_BATCHING = { localQueueSize: 32, completeJobBatchDelayMs: 0 };

/** The child side: graphile-worker's `run` with one no-op task that prints its start time (epoch ms) per line. */
export async function graphileWorkerMain(arg: string): Promise<void> {
  const [, concurrency, pollMs, mode, ...rest] = arg.split("|");
  const { run } = await import("graphile-worker");
  // Lines are buffered and written once per tick: a write per task would cost the baseline more than its task.
  let buf: string[] = [];
  const flush = () => {
    if (buf.length === 0) return;
    process.stdout.write(buf.join("\n") + "\n");
    buf = [];
  };
  const runner = await run({
    connectionString: rest.join("|"),
    concurrency: Number(concurrency),
    pollInterval: Number(pollMs),
    noHandleSignals: true,
    ...(mode === "batched"
      ? {
          preset: {
            worker: {
              localQueue: { size: GRAPHILE_BATCHING.localQueueSize },
              completeJobBatchDelay: GRAPHILE_BATCHING.completeJobBatchDelayMs,
              failJobBatchDelay: GRAPHILE_BATCHING.completeJobBatchDelayMs,
            },
          },
        }
      : {}),
    logger: new (await import("graphile-worker")).Logger(() => () => {}),
    taskList: {
      noop: async () => {
        if (buf.length === 0) setImmediate(flush);
        buf.push(String(performance.timeOrigin + performance.now()));
      },
    },
  });
  process.stdout.write("ready\n");
  process.on("SIGTERM", () => void runner.stop().finally(() => process.exit(0)));
}

/** Installs graphile-worker's schema once (the worker processes then skip it). */
export async function migrateGraphile(url: string): Promise<void> {
  const { runMigrations, Logger } = await import("graphile-worker");
  await runMigrations({ connectionString: url, logger: new Logger(() => () => {}) });
}
